package serve

import (
	"net/http/httptest"
	"strconv"
	"testing"
)

// BenchmarkListPending is GET /api/requests?state=pending with 1,000
// pending requests across 10 folders, through the handler (security
// checks included).
func BenchmarkListPending(b *testing.B) {
	h := newHarness(b, 10)
	for _, p := range h.projects {
		for i := range 100 {
			p.submit(b, "make deploy TARGET=host-"+strconv.Itoa(i))
		}
	}
	h.pending(b, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "http://"+testAddr+"/api/requests?state=pending", nil)
		r.Header.Set("Authorization", "Bearer "+h.token)
		h.h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
