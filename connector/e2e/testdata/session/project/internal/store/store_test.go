package store

import "testing"

func TestAddGet(t *testing.T) {
	s := New()
	n := s.Add("a", "b")
	got, err := s.Get(n.ID)
	if err != nil || got != n {
		t.Fatalf("Get(%d) = %+v, %v", n.ID, got, err)
	}
	// TODO: test List ordering
}
