package queue_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// TestMain of the external test package dispatches the writer child role.
func TestMain(m *testing.M) {
	switch os.Getenv("QUEUE_TEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "claimer":
		os.Exit(claimerChild())
	case "writer":
		os.Exit(writerChild())
	default:
		fmt.Fprintln(os.Stderr, "unknown child role")
		os.Exit(2)
	}
}

// claimerChild claims QUEUE_TEST_ID in QUEUE_TEST_DIR, optionally
// begins it, says so on stdout and then sleeps until killed.
func claimerChild() int {
	f, err := folder.New(os.Getenv("QUEUE_TEST_DIR"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	q, err := queue.Open(f)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	c, err := q.Claim(os.Getenv("QUEUE_TEST_ID"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	if os.Getenv("QUEUE_TEST_BEGIN") == "1" {
		if err := c.Begin(); err != nil {
			fmt.Println("error", err)
			return 1
		}
	}
	fmt.Println("claimed")
	time.Sleep(time.Minute)
	return 0
}
