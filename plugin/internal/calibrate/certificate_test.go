package calibrate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xeipuuv/gojsonschema"

	"agentv-review/schema"
)

// sampleReport is a report with every kind of grader: defined κ, undefined
// κ, an older configuration, false passes and fails.
func sampleReport(t *testing.T) *Report {
	t.Helper()
	a := fp(t, GraderDef{Type: "contains", Name: "contains-42", Value: "42"})
	b := fp(t, GraderDef{Type: "contains", Name: "contains-42", Value: " 42"})
	j := fp(t, judge)
	obs := cells("it-1", "contains:contains-42", a, Confusion{TP: 3, FN: 1, TN: 2, FP: 1})
	obs = append(obs, cells("it-2", "contains:contains-42", b, Confusion{TP: 4})...)
	obs = append(obs, cells("it-2", "llm-grader:haiku-judge", j, worked)...)
	rep, err := Build(obs, Options{Now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSchemaCompilesAsDraft07(t *testing.T) {
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.Validate = true
	if _, err := sl.Compile(gojsonschema.NewBytesLoader(schema.CalibrationJSON)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(schema.CalibrationJSON, []byte(`"$schema": "http://json-schema.org/draft-07/schema#"`)) {
		t.Error("calibration.schema.json does not declare draft-07")
	}
	var refs []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				if s, ok := sub.(string); ok && k == "$ref" {
					refs = append(refs, s)
				}
				walk(sub)
			}
		case []any:
			for _, sub := range v {
				walk(sub)
			}
		}
	}
	var doc any
	if err := json.Unmarshal(schema.CalibrationJSON, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc)
	for _, r := range refs {
		if !strings.HasPrefix(r, "#/definitions/") {
			t.Errorf("$ref %q is not internal", r)
		}
	}
}

func TestCertificateRoundTrip(t *testing.T) {
	rep := sampleReport(t)
	data, err := Encode(rep)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Validate(data)
	if err != nil || len(problems) > 0 {
		t.Fatalf("Encode wrote an invalid certificate: %v %v\n%s", problems, err, data)
	}
	if !bytes.Contains(data, []byte(`"generated_at": "2026-12-01T09:00:00Z"`)) || !bytes.Contains(data, []byte(`"kappa": null`)) {
		t.Errorf("certificate lacks the UTC time or a null κ:\n%s", data)
	}
	back, err := Decode("cert.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rep) {
		t.Errorf("Decode(Encode(r)) differs from r:\n%+v\n%+v", back, rep)
	}
}

func TestDecodeRejects(t *testing.T) {
	data, _ := Encode(sampleReport(t))
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"not JSON", `"version": 1`, `"version": 1,,`, "cert.json: not JSON"},
		{"future version", `"version": 1`, `"version": 2`, "cert.json: not a calibration certificate: version: "},
		{"bad band", `"band": "trend"`, `"band": "great"`, "graders.2.band: "},
		{"bad fingerprint", `"config": "sha256:`, `"config": "md5:`, "graders.0.config: "},
		{"rate above 1", `"rate": 0.9,`, `"rate": 1.9,`, "graders.2.tpr.rate: "},
		{"unknown field", `"labels":`, `"label": 1, "labels":`, "additional property label is not allowed"},
	} {
		bad := strings.Replace(string(data), tc.old, tc.new, 1)
		if bad == string(data) {
			t.Fatalf("%s: %q is not in the certificate", tc.name, tc.old)
		}
		_, err := Decode("cert.json", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
