// Command slowreader asks the terminal for the cursor position the way a
// survey line prompt does (survey's own terminal.Cursor.Location), but
// stalls for half a second between the request and the read of the answer,
// as a program on a loaded machine can. Then it reads one key and prints it.
// The prompt package's PTY tests use it to prove that ptytest.Send does not
// type keys behind an answer the program has not read yet: survey drops
// such keys.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/AlecAivazis/survey/v2/terminal"
)

// stalling writes, then stalls.
type stalling struct{ *os.File }

func (s stalling) Write(p []byte) (int, error) {
	n, err := s.File.Write(p)
	time.Sleep(500 * time.Millisecond)
	return n, err
}

func main() {
	rr := terminal.NewRuneReader(terminal.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	if err := rr.SetTermMode(); err != nil {
		fmt.Println("raw mode:", err)
		os.Exit(1)
	}
	defer rr.RestoreTermMode()
	fmt.Print("ready\r\n")
	cursor := terminal.Cursor{In: os.Stdin, Out: stalling{os.Stdout}}
	at, err := cursor.Location(rr.Buffer())
	if err != nil {
		fmt.Printf("cursor: %v\r\n", err)
		return
	}
	fmt.Printf("cursor at %d,%d\r\n", at.X, at.Y)
	r, _, err := rr.ReadRune()
	fmt.Printf("key=%q err=%v\r\n", r, err)
}
