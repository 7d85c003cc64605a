package serve

import (
	"context"

	"github.com/sandbox-dev/sandbox/connector/approver"
)

// autoDecide lets remembered decisions settle the requests that just
// appeared, as `sandbox watch` does: a remembered allow is approved and
// run here, a remembered deny denied. Another approver racing for the
// same request loses or wins the claim; nothing runs twice.
func (fs *folderState) autoDecide(added []*entry) {
	for _, e := range added {
		req := e.req
		if _, ok := fs.ap.Remembered(req); !ok {
			continue
		}
		fs.s.execute(func(ctx context.Context) {
			_, _, err := fs.ap.Decide(ctx, req, approver.ApproveOptions{})
			if err != nil {
				fs.s.log.Warn("remembered decision not applied", "id", req.ID, "err", err)
			}
		})
	}
}
