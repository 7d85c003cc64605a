package jsonedit

import (
	"encoding/json"
	"fmt"
)

// InstallRecorded is Install for an integration that keeps its change as
// a JSON record: it decodes prev (empty for none; who names the
// integration in the error when it does not decode), installs, and
// returns the record to keep, prev itself when nothing changed.
func (e Edit) InstallRecorded(root, who string, prev []byte) ([]byte, error) {
	var old *Change
	if len(prev) > 0 {
		var err error
		if old, err = DecodeRecord(who, prev); err != nil {
			return nil, err
		}
	}
	ch, changed, err := e.Install(root, old)
	if err != nil {
		return nil, err
	}
	if !changed {
		return prev, nil
	}
	return json.Marshal(ch)
}

// DecodeRecord decodes a change recorded by InstallRecorded.
func DecodeRecord(who string, rec []byte) (*Change, error) {
	ch := &Change{}
	if err := json.Unmarshal(rec, ch); err != nil {
		return nil, fmt.Errorf("%s: recorded change: %w", who, err)
	}
	return ch, nil
}
