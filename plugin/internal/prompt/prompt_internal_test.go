package prompt

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/AlecAivazis/survey/v2/terminal"

	"agentv-review/plugin/internal/clierr"
)

func TestInterrupted(t *testing.T) {
	other := errors.New("boom")
	tests := []struct {
		in       error
		wantCode int
		wantMsg  string
	}{
		{nil, clierr.CodeOK, ""},
		{terminal.InterruptErr, clierr.CodeInterrupted, "interrupted: ctrl-c"},
		{io.EOF, clierr.CodeInterrupted, "interrupted: input ended"},
		{fmt.Errorf("read: %w", io.EOF), clierr.CodeInterrupted, "interrupted: input ended"},
		{other, clierr.CodeFailure, "boom"},
	}
	for _, tt := range tests {
		got := interrupted(tt.in)
		if code := clierr.Code(got); code != tt.wantCode {
			t.Errorf("clierr.Code(interrupted(%v)) = %d, want %d", tt.in, code, tt.wantCode)
		}
		if got != nil && got.Error() != tt.wantMsg {
			t.Errorf("interrupted(%v) = %q, want %q", tt.in, got, tt.wantMsg)
		}
	}
}

func TestNumberOrText(t *testing.T) {
	options := numbered([]string{"acceptable", "needs improvement", "Incorrect"})
	tests := []struct {
		filter string
		want   []int
	}{
		{"", []int{0, 1, 2}},
		{"2", []int{1}},
		{"12", nil},
		{"inc", []int{2}},
		{"e", []int{0, 1, 2}},
	}
	for _, tt := range tests {
		var got []int
		for i, o := range options {
			if numberOrText(tt.filter, o, i) {
				got = append(got, i)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("filter %q keeps %v, want %v", tt.filter, got, tt.want)
		}
	}
}
