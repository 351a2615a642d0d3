package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"agentv-review/schema"
)

// Encode writes rep as a judge certificate: indented JSON valid under
// schema/calibration.schema.json, ending in a newline.
func Encode(rep *Report) ([]byte, error) {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// certificateSchema is the embedded schema, compiled once.
var certificateSchema = sync.OnceValues(func() (*gojsonschema.Schema, error) {
	return schema.Compile("calibration.schema.json", schema.CalibrationJSON)
})

// Validate checks data against schema/calibration.schema.json and returns
// every problem as "path: description" (lowercase); none means valid. The error is
// non-nil when data is not JSON or the embedded schema is broken.
func Validate(data []byte) ([]string, error) {
	var syntax any
	if err := json.Unmarshal(data, &syntax); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	s, err := certificateSchema()
	if err != nil {
		return nil, err
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(data))
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, re := range res.Errors() {
		msg := strings.TrimPrefix(re.Description(), re.Field()+" ")
		if msg != "" {
			msg = strings.ToLower(msg[:1]) + msg[1:]
		}
		problems = append(problems, re.Field()+": "+msg)
	}
	return problems, nil
}

// Decode validates data and reads it as a certificate. name (the file's
// path) prefixes every error.
func Decode(name string, data []byte) (*Report, error) {
	problems, err := Validate(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(problems) > 0 {
		more := ""
		if len(problems) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(problems)-1)
		}
		return nil, fmt.Errorf("%s: not a calibration certificate: %s%s (hint: recompute it with agentv review calibrate)", name, problems[0], more)
	}
	var rep Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &rep, nil
}

// GateResult is the decision on one grader that decides a run's cases.
type GateResult struct {
	Ref
	Pass bool `json:"pass"`
	// Band is the band of the current configuration's calibration, "" when
	// the certificate has none.
	Band   Band   `json:"band,omitempty"`
	Reason string `json:"reason"`
	// More is how many more labels of each class would lift TPR and TNR to
	// the required band's lower bounds, if the observed rates hold.
	More Needed `json:"more"`
	// MoreNote qualifies More: a floor when a class has no labels yet, or
	// why labels alone cannot help.
	MoreNote string `json:"more_note,omitempty"`
}

// ErrBand reports a required band a gate cannot ask for.
var ErrBand = errors.New("required band must be gating or trend")

// Gate decides, for each grader that decides a run's cases (its key and
// current configuration), whether cert calibrates it at least to the
// required band (Gating or Trend). Calibrations of other configurations
// never count: they are history, not evidence.
func Gate(cert *Report, deciders []Ref, required Band) ([]GateResult, error) {
	if required != Gating && required != Trend {
		return nil, fmt.Errorf("%w, not %q", ErrBand, required)
	}
	byRef := map[Ref]*Grader{}
	older := map[string]int{}
	for i := range cert.Graders {
		g := &cert.Graders[i]
		byRef[Ref{g.Key, g.Config}] = g
		older[g.Key]++
	}
	results := make([]GateResult, 0, len(deciders))
	for _, d := range deciders {
		r := GateResult{Ref: d}
		g := byRef[d]
		tpr, tnr := Rate{Low: 0, High: 1}, Rate{Low: 0, High: 1}
		if g == nil {
			r.Reason = "no calibration for its current configuration " + d.Config
			if n := older[d.Key]; n > 0 {
				r.Reason += fmt.Sprintf(" (%d other configuration(s) of %s are history, not evidence)", n, d.Key)
			}
		} else {
			r.Band, tpr, tnr = g.Band, g.TPR, g.TNR
			r.Pass = g.Band.rank() >= required.rank()
			if r.Pass {
				r.Reason = fmt.Sprintf("band %s meets %s: %s", g.Band, required, g.BandWhy)
			} else {
				r.Reason = fmt.Sprintf("band %s is below %s: %s", g.Band, required, g.BandWhy)
			}
		}
		if !r.Pass {
			r.More, r.MoreNote = moreFor(required, tpr, tnr)
		}
		results = append(results, r)
	}
	return results, nil
}

// moreFor is how many more labels of each class lift the rates' lower
// bounds to those band needs, with a note on floors and dead ends. κ is
// left out: the gate's reason names it when it falls short.
func moreFor(band Band, tpr, tnr Rate) (Needed, string) {
	var notes []string
	class := func(r Rate, bound float64, what string) int {
		if bound == 0 {
			return 0
		}
		p := r.P
		if r.N == 0 {
			p = 1 // best case: a floor
			notes = append(notes, fmt.Sprintf("no %s labels yet: at least this many", what))
		}
		n, ok := LabelsForBound(p, bound)
		if !ok {
			notes = append(notes, fmt.Sprintf("its rate on %s labels (%.3f) is not above %.1f: more labels cannot lift the bound, fix the grader", what, p, bound))
			return 0
		}
		return max(0, n-r.N)
	}
	posBound, negBound := 0.0, TrendTNR
	if band == Gating {
		posBound, negBound = GatingRate, GatingRate
	}
	more := Needed{Positive: class(tpr, posBound, "human-pass"), Negative: class(tnr, negBound, "human-fail")}
	return more, strings.Join(notes, "; ")
}
