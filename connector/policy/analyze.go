package policy

import "github.com/sandbox-dev/sandbox/connector/shell"

func init() {
	analyzeScript = shell.Analyze
	analyzeArgv = shell.AnalyzeArgv
}
