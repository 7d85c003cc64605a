//go:build !unix

package checkpoint

// oNoFollow: Windows has no O_NOFOLLOW; os.Root still keeps reads inside
// the project, and the opened file's own stat is checked to be regular.
const oNoFollow = 0
