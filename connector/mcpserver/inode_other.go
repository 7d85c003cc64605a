//go:build !linux

package mcpserver

import "io/fs"

// inode is empty where the file system gives no inode.
func inode(fs.FileInfo) string { return "" }
