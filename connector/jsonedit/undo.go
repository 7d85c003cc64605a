package jsonedit

// Matcher reports whether the value n, found where site s inserted
// something, is still what sandbox put there.
type Matcher func(s Site, n *Node) bool

// Undo reverts sites, newest first. A member site removes its member
// when the member is an empty object or array (whatever the user added
// since stays), or when ours says it is still sandbox's. An element site
// removes the last element of its array that ours recognises. What is
// gone already is skipped.
func (d *Doc) Undo(sites []Site, ours Matcher) error {
	for i := len(sites) - 1; i >= 0; i-- {
		var err error
		if sites[i].Member == "" {
			err = d.undoElement(sites[i], ours)
		} else {
			err = d.undoMember(sites[i], ours)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *Doc) undoElement(s Site, ours Matcher) error {
	arr, err := d.Lookup(s.Path)
	if err != nil || arr == nil || arr.Kind != Array {
		return err
	}
	for i := len(arr.Elems) - 1; i >= 0; i-- {
		if ours(s, arr.Elems[i]) {
			d.removeItem(arr, i, s.EmptyWS)
			return nil
		}
	}
	return nil
}

func (d *Doc) undoMember(s Site, ours Matcher) error {
	obj, err := d.Lookup(s.Path)
	if err != nil || obj == nil || obj.Kind != Object {
		return err
	}
	for i, m := range obj.Members {
		if m.Key != s.Member {
			continue
		}
		empty := (m.Val.Kind == Object || m.Val.Kind == Array) && m.Val.Len() == 0
		if empty || ours(s, m.Val) {
			d.removeItem(obj, i, s.EmptyWS)
		}
		return nil
	}
	return nil
}
