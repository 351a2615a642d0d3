// Package clierr carries the user-facing error contract of agentv-review:
// every error that reaches the user is one line naming what went wrong
// (file, line and field when known), an optional hint line, and an exit code.
//
// Exit codes (documented in docs/cli.md and --help):
//
//	0   ok
//	1   failure (a gate failed, a write failed, a comparison found problems)
//	2   usage (bad flags or arguments, no terminal for an interactive command)
//	3   invalid input or run (unreadable/malformed run, invalid feedback file)
//	130 interrupted (Ctrl-C)
package clierr

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Exit codes.
const (
	CodeOK          = 0
	CodeFailure     = 1
	CodeUsage       = 2
	CodeInvalid     = 3
	CodeInterrupted = 130
)

// ErrInterrupted is returned (possibly wrapped) when the user pressed Ctrl-C.
var ErrInterrupted = errors.New("interrupted")

// Error is a user-facing error.
type Error struct {
	Code  int    // exit code
	File  string // file the problem is in, "" when none
	Line  int    // 1-based line, 0 when none
	Field string // JSON field or path, "" when none
	Msg   string // lowercase, no trailing period
	Hint  string // how to fix it, "" when unknown
	Err   error  // underlying cause, may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Input reports invalid input (exit 3).
func Input(file string, line int, field, msg, hint string) *Error {
	return &Error{Code: CodeInvalid, File: file, Line: line, Field: field, Msg: msg, Hint: hint}
}

// Usage reports a usage error (exit 2).
func Usage(msg, hint string) *Error {
	return &Error{Code: CodeUsage, Msg: msg, Hint: hint}
}

// Failure reports an operational failure (exit 1), wrapping cause.
func Failure(cause error, msg, hint string) *Error {
	return &Error{Code: CodeFailure, Msg: msg, Hint: hint, Err: cause}
}

// Code returns the exit code for err: 0 for nil, 130 for interruption,
// the Error's code when err is (or wraps) an *Error, 1 otherwise.
func Code(err error) int {
	if err == nil {
		return CodeOK
	}
	if errors.Is(err, ErrInterrupted) {
		return CodeInterrupted
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeFailure
}

// HintOf returns the hint carried by err, "" when none.
func HintOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}

// Cause is err's text without the path an *os.PathError repeats (the
// message already names the file): "permission denied", not
// "open /x/feedback.json: permission denied".
func Cause(err error) string {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
