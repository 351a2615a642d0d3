package calibrate

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

// hostile is a report whose file-borne strings attack terminals and
// spreadsheets.
func hostile(t *testing.T) *Report {
	t.Helper()
	obs := cells("run\x1b]0;owned\x07", "=cmd|' /C calc'!A0", "sha256:a", Confusion{TP: 2, FP: 1})
	obs[2].Case = "case\x1b[2J\u202e"
	rep, err := Build(obs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestWriteTextSanitises(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, hostile(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Fatalf("text output carries terminal controls:\n%q", out)
	}
	for _, want := range []string{"run␛]0;owned␇", "case␛[2J<U+202E>", "false passes (1)", "κ   0.000 [-1.000, 1.000]", "rule: gating if κ ≥ 0.7"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteTextWorkedExample(t *testing.T) {
	rep, _ := Build(cells("run-1", "g:x", "sha256:a", worked), Options{})
	var b bytes.Buffer
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"g:x  sha256:a  (current)",
		"TP 45  FN 5  TN 40  FP 10",
		"TPR 0.900 [0.786, 0.957]  (45 of 50 human passes)",
		"TNR 0.800 [0.670, 0.888]  (40 of 50 human fails)",
		"κ   0.700 [0.560, 0.840]  SE 0.0714",
		"band trend: not gating: TPR lower bound 0.786 < 0.8; TNR lower bound 0.670 < 0.8",
		"within ±0.05: 89 more human-pass and 196 more human-fail labels",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	rep, _ = Build(cells("run-1", "g:x", "sha256:a", Confusion{TN: 4}), Options{})
	WriteText(&b, rep)
	for _, want := range []string{"TPR n/a (no labels)", "κ   n/a: chance agreement pₑ is 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("one-class text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteText(&b, &Report{BandRule: BandRule}); err != nil || !strings.HasPrefix(b.String(), "no grader has human labels yet") {
		t.Errorf("empty report printed %q, %v", b.String(), err)
	}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, hostile(t)); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || len(rows[0]) != len(CSVHeader) || len(rows[1]) != len(CSVHeader) {
		t.Fatalf("rows = %q", rows)
	}
	row := map[string]string{}
	for i, h := range CSVHeader {
		row[h] = rows[1][i]
	}
	want := map[string]string{
		"key": "'=cmd|' /C calc'!A0", "tp": "2", "fp": "1", "tpr": "1.000", "tnr": "0.000",
		"kappa": "0.000", "band": "exploration", "false_passes": "1", "false_fails": "0",
	}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("%s = %q, want %q", k, row[k], v)
		}
	}
	b.Reset()
	rep, _ := Build(cells("r", "g:x", "sha256:a", Confusion{TP: 3}), Options{})
	WriteCSV(&b, rep)
	if rows, _ := csv.NewReader(&b).ReadAll(); rows[1][11] != "" || rows[1][14] != "" {
		t.Errorf("unknown TNR or κ should be empty cells: %q", rows[1])
	}
}
