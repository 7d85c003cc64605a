package serve

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// apiError is the body of every error response.
type apiError struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, apiError{Error: display.EscapeLine(msg), Code: code})
}

// fail answers err with the status that fits it.
func fail(w http.ResponseWriter, err error) {
	status, code := errStatus(err)
	writeError(w, status, code, err.Error())
}

func errStatus(err error) (int, string) {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, "too_large"
	case errors.Is(err, approver.ErrBadID), errors.Is(err, errBadBody):
		return http.StatusBadRequest, "bad_request"
	case errors.Is(err, approver.ErrNotFound), errors.Is(err, errNoFolder), errors.Is(err, queue.ErrNotFound):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, approver.ErrAlreadyTaken):
		return http.StatusConflict, "already_taken"
	case errors.Is(err, approver.ErrAlreadyDecided):
		return http.StatusConflict, "already_decided"
	case errors.Is(err, approver.ErrDeniedBeforeStart):
		return http.StatusConflict, "denied_first"
	case errors.Is(err, approver.ErrTooLate):
		return http.StatusConflict, "too_late"
	case errors.Is(err, queue.ErrBadFile), errors.Is(err, errHashMismatch):
		return http.StatusConflict, "changed"
	case errors.Is(err, errNoHash):
		return http.StatusConflict, "hash_required"
	case errors.Is(err, errStale):
		return http.StatusConflict, "stale"
	case errors.Is(err, errAmbiguous), errors.Is(err, errPolicyChanged), errors.Is(err, errNoPolicyChange):
		return http.StatusConflict, "conflict"
	case errors.Is(err, approver.ErrNoMemory), errors.Is(err, approver.ErrNoPattern), errors.Is(err, queue.ErrInvalid):
		return http.StatusUnprocessableEntity, "unprocessable"
	case errors.Is(err, errNoPolicies):
		return http.StatusNotImplemented, "unavailable"
	case errors.Is(err, approver.ErrAuditRefused):
		return http.StatusServiceUnavailable, "audit_refused"
	}
	return http.StatusInternalServerError, "internal"
}

var errBadBody = errors.New("bad request body")

// decodeBody reads an optional JSON body into v: an empty body leaves v
// as it is; unknown fields are refused.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return nil
	case errors.As(err, new(*http.MaxBytesError)):
		return err
	}
	return errors.Join(errBadBody, err)
}
