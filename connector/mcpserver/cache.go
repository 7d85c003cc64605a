package mcpserver

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// statusCache keeps the expensive parts of sandbox_status (loading the
// policy, verifying the whole audit log) until the files they come from
// change: the policy's engine through store.Memo, the audit's result by
// a fingerprint of the log files' names, sizes and times.
type statusCache struct {
	mu sync.Mutex
	// the fields below are guarded by mu.
	memo      *store.Memo    // made on first use, with the first caller's logger
	policyEng *policy.Engine // the engine policyVal summarises
	policyVal PolicyStatus
	auditKey  string
	auditVal  AuditStatus
}

func (c *statusCache) policy(f folder.Folder, us *userstate.State, log *slog.Logger) PolicyStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.memo == nil {
		c.memo = store.NewMemo(log)
	}
	eng, warns, err := c.memo.Load(f, us)
	if err != nil {
		return PolicyStatus{State: "unavailable", Rules: map[string]map[string]int{}, Warnings: []string{err.Error()}}
	}
	if eng != c.policyEng {
		c.policyEng, c.policyVal = eng, policySummary(eng, warns)
	}
	return c.policyVal
}

func (c *statusCache) audit(f folder.Folder, us *userstate.State) AuditStatus {
	dir, err := audit.Dir(f, us)
	if err != nil {
		return AuditStatus{Problem: fmt.Sprintf("could not verify: %v", err)}
	}
	key := "audit;" + fingerprintDir(dir, ".jsonl")
	c.mu.Lock()
	defer c.mu.Unlock()
	if key == c.auditKey {
		return c.auditVal
	}
	rep, err := audit.Verify(f, us)
	if err != nil {
		return AuditStatus{Problem: fmt.Sprintf("could not verify: %v", err)}
	}
	c.auditKey, c.auditVal = key, auditSummary(rep)
	return c.auditVal
}

// fingerprint identifies a file's version: inode, size and change times.
func fingerprint(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return path + ":missing;"
	}
	return fmt.Sprintf("%s:%d:%d:%s;", path, fi.Size(), fi.ModTime().UnixNano(), inode(fi))
}

// fingerprintDir fingerprints the files of dir whose names end in suffix.
func fingerprintDir(dir, suffix string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return dir + ":unreadable;"
	}
	var b strings.Builder
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) {
			b.WriteString(fingerprint(filepath.Join(dir, e.Name())))
		}
	}
	return b.String()
}
