package policy

import (
	"strings"
	"testing"
)

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		mem, cpu string
		bytes    int64
		cores    float64
		bad      string // in the parse error
	}{
		{"", "", 0, 0, ""},
		{"4GiB", "200%", 4 << 30, 2, ""},
		{"512M", "1.5", 512 << 20, 1.5, ""},
		{"1024", "50 %", 1024, 0.5, ""},
		{"lots", "", 0, 0, "limits.memory"},
		{"-1G", "", 0, 0, "limits.memory"},
		{"", "two", 0, 0, "limits.cpu"},
		{"", "-100%", 0, 0, "limits.cpu"},
		{"", "0", 0, 0, "limits.cpu"},
	} {
		t.Run(tc.mem+"/"+tc.cpu, func(t *testing.T) {
			src := "version: 1\nlimits: {memory: \"" + tc.mem + "\", cpu: \"" + tc.cpu + "\"}\n"
			p, err := Parse("policy.yaml", []byte(src))
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("err %v, want one about %s", err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err1 := p.Limits.MemoryBytes()
			c, err2 := p.Limits.CPUCores()
			if err1 != nil || err2 != nil || b != tc.bytes || c != tc.cores {
				t.Errorf("memory %d %v, cpu %v %v; want %d, %v", b, err1, c, err2, tc.bytes, tc.cores)
			}
		})
	}
}

func TestLimitsPIDs(t *testing.T) {
	for pids, ok := range map[string]bool{"0": true, "16": true, "512": true, "15": false, "1": false, "-1": false} {
		_, err := Parse("policy.yaml", []byte("version: 1\nlimits: {pids: "+pids+"}\n"))
		if (err == nil) != ok {
			t.Errorf("pids %s: err %v, want ok=%v", pids, err, ok)
		}
	}
}
