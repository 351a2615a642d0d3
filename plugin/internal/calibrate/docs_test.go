package calibrate

import (
	"encoding/json"
	"strings"
	"testing"

	"agentv-review/docs"
	"agentv-review/schema"
)

// TestDocNamesEveryCertificateField keeps docs/calibration.md in step with
// schema/calibration.schema.json.
func TestDocNamesEveryCertificateField(t *testing.T) {
	md, err := docs.Read("calibration")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(schema.CalibrationJSON, &root); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for name := range props {
					names[name] = true
				}
			}
			for _, sub := range v {
				walk(sub)
			}
		case []any:
			for _, sub := range v {
				walk(sub)
			}
		}
	}
	walk(root)
	if len(names) < 30 {
		t.Fatalf("found only %d schema fields", len(names))
	}
	for name := range names {
		if !strings.Contains(string(md), "`"+name+"`") {
			t.Errorf("docs/calibration.md does not name certificate field `%s`", name)
		}
	}
	// The documented fingerprint example is the real one.
	got := fp(t, GraderDef{Type: "contains", Name: "contains-42", Value: "42"})
	if !strings.Contains(string(md), "`"+got+"`") {
		t.Errorf("docs/calibration.md does not show the fingerprint %s of its example", got)
	}
}
