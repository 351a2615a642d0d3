package genrun

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

const corpusBytes = 256 << 10

var lorem = strings.Fields(`the agent reads the ticket and checks the refund policy before it answers
customer account invoice balance migration schema query index latency budget tool call
retry timeout summary because however therefore first second finally note that each
step returns a value which the caller validates against the expected output format`)

// newCorpus returns ASCII markdown (headings, paragraphs, lists, code
// fences) that answers are cut from; ASCII keeps any cut valid UTF-8.
func newCorpus(rng *rand.Rand) []byte {
	var b strings.Builder
	for b.Len() < corpusBytes {
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "## Step %d\n\n", rng.IntN(20)+1)
		case 1:
			b.WriteString("```sql\nSELECT id, total FROM invoices WHERE status = 'open';\n```\n\n")
		case 2:
			for range 3 {
				fmt.Fprintf(&b, "- %s %s\n", lorem[rng.IntN(len(lorem))], lorem[rng.IntN(len(lorem))])
			}
			b.WriteString("\n")
		default:
			for i := range 40 + rng.IntN(40) {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(lorem[rng.IntN(len(lorem))])
			}
			b.WriteString(".\n\n")
		}
	}
	return []byte(b.String()[:corpusBytes])
}

// answerHeader starts every answer, so each is recognisable and different.
func (r *row) answerHeader() string {
	return fmt.Sprintf("## %s (%s)\n\n", r.testID, r.target)
}

// writeAnswer writes exactly r.answerSize bytes: the header, then the corpus
// from r.answerOff, wrapping around.
func (p *planner) writeAnswer(w io.Writer, r *row) error {
	h := r.answerHeader()
	if len(h) >= r.answerSize {
		_, err := io.WriteString(w, h[:r.answerSize])
		return err
	}
	if _, err := io.WriteString(w, h); err != nil {
		return err
	}
	left, off := r.answerSize-len(h), r.answerOff
	for left > 0 {
		n := min(left, len(p.corpus)-off)
		if _, err := w.Write(p.corpus[off : off+n]); err != nil {
			return err
		}
		left -= n
		off = 0
	}
	return nil
}

// answer returns the whole answer as a string (for inline outputs).
func (p *planner) answer(r *row) string {
	var b strings.Builder
	b.Grow(r.answerSize)
	_ = p.writeAnswer(&b, r) // a strings.Builder never fails
	return b.String()
}

// answerHead is the first n bytes of the answer.
func (p *planner) answerHead(r *row, n int) string {
	h := r.answerHeader()
	n = min(n, r.answerSize)
	if n <= len(h) {
		return h[:n]
	}
	end := min(r.answerOff+n-len(h), len(p.corpus))
	return h + string(p.corpus[r.answerOff:end])
}

func (r *row) question() string {
	_, n, _ := strings.Cut(r.testID, "-")
	n, _, _ = strings.Cut(n, "-")
	return fmt.Sprintf("A customer writes about their %s (case %s). Explain what happened, what the policy says, and the next step, as a short markdown answer with a heading.", n, r.testID)
}

const graderPreamble = `You are grading an AI agent's answer against the criteria of the original task.

Treat the reference_answer, when one is given, as an example of a good response: it may be plain text or a sequence of agent messages including tool calls, in which case the last message is the final expected answer. The agent's answer need not match it word for word, but it should cover the same key points and keep to the same intent.

Judge only what the answer says. Do not reward length, confident tone or formatting that adds nothing. If the answer contains a factual error that contradicts the reference, say so in one assertion. Keep every assertion short and specific, and give evidence from the answer where you can.

`

const graderSystemPrompt = "You must respond with a single JSON object matching this schema:\n\n{\n  \"score\": <number between 0.0 and 1.0>,\n  \"assertions\": [\n    {\n      \"text\": \"<brief description of what was checked>\",\n      \"passed\": <boolean>,\n      \"evidence\": \"<concise evidence, 1-2 sentences, optional>\"\n    }\n  ],\n  \"details\": {<optional object with domain-specific structured metrics>}\n}"

// userPrompt is the llm-grader prompt AgentV records in scores[].input:
// about 1.5–2 KB, embedding the head of the answer.
func (p *planner) userPrompt(r *row) string {
	return graderPreamble +
		"[[ ## criteria ## ]]\nStates the policy correctly, names the next step, and stays under 200 words.\n\n" +
		"[[ ## question ## ]]\n" + r.question() + "\n\n" +
		"[[ ## reference_answer ## ]]\nThe refund was issued to the original payment method; it appears within 5 business days. Next step: confirm the account email.\n\n" +
		"[[ ## answer ## ]]\n" + p.answerHead(r, 512)
}
