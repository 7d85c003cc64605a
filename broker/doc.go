// Package broker executes what an approver approved, outside the jail, from
// the approver's memory: a shell script with the shell it was written for or
// an argv with no shell, in a re-checked working directory inside the
// project, with a scrubbed environment, a timeout that kills the whole
// process tree, and stdout and stderr captured separately (capped, head and
// tail around a mark) while being streamed into the full log file
// (results/ID.log). It also applies approved writes and edits atomically
// without ever following a link the agent could have planted.
//
// # The log file
//
// The log is plain text: the command's stdout and stderr bytes, interleaved
// in the order they arrived, exactly as a terminal shows `cmd 2>&1`. There is
// no header, trailer or framing, so `tail -f`, the agent's Read tool and a
// human all read it directly. A chunk is written whole before the next one,
// so the two streams interleave at read boundaries (usually whole lines for
// line-buffered programs). The log is complete when done/ID.json appears; its
// separated, capped copies of stdout and stderr are in the Outcome. When the
// command cannot be started, the log holds one line starting "sandbox:".
//
// # Processes
//
// With a Jailer (Spec.Jail) the command runs in a grant jail of its own:
// the project jail widened by exactly what the approval named (Grant,
// GrantFor, Describe), in a cgroup that is killed whole when the command
// ends, times out or is cancelled, so nothing it started survives, setsid
// or not. Where no jail can be built it runs without one, in a cgroup of
// its own where possible, and Outcome.Where says so.
//
// Without a Jailer, on Unix the command runs in a new session (setsid),
// hence its own process group with no controlling terminal: a prompt for
// a password fails at once instead of stopping on the approver's
// terminal. When the leader exits, on timeout and on cancellation the
// whole group is killed (timeout and cancellation: SIGTERM, then SIGKILL
// after KillGrace; after a normal exit: SIGKILL to whatever the command
// left running). A process that escapes the group (its own setsid) is not
// tracked there; output drains for at most DrainTimeout after the leader
// is gone. On Windows the command starts suspended in a Job Object of its
// own with kill-on-close, which ends every process it started.
//
// Either way the command gets its three streams and no other descriptor
// of the approver's.
package broker
