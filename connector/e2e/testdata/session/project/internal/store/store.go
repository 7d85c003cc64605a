// Package store keeps notes in memory.
package store

import (
	"errors"
	"sort"
	"sync"
)

// ErrNotFound is returned for an unknown note id.
var ErrNotFound = errors.New("note not found")

// Note is one note.
type Note struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Store is a concurrency-safe set of notes.
type Store struct {
	mu    sync.Mutex
	next  int
	notes map[int]Note
}

// New returns an empty store.
func New() *Store {
	return &Store{next: 1, notes: map[int]Note{}}
}

// Add stores a note and returns it with its id.
func (s *Store) Add(title, body string) Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := Note{ID: s.next, Title: title, Body: body}
	s.notes[n.ID] = n
	s.next++
	return n
}

// Get returns the note with the given id.
func (s *Store) Get(id int) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[id]
	if !ok {
		return Note{}, ErrNotFound
	}
	return n, nil
}

// List returns every note, oldest first.
func (s *Store) List() []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Note, 0, len(s.notes))
	for _, n := range s.notes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
