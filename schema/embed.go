// Package schema embeds the JSON Schemas (draft-07) of the documents
// agentv-review writes: feedback.schema.json, the feedback.json a review
// writes, and calibration.schema.json, the judge certificate. The files in
// the repository and the bytes in the binary are one and the same.
package schema

import (
	_ "embed"
	"fmt"

	"github.com/xeipuuv/gojsonschema"
)

// JSON is feedback.schema.json, byte for byte.
//
//go:embed feedback.schema.json
var JSON []byte

// CalibrationJSON is calibration.schema.json, byte for byte.
//
//go:embed calibration.schema.json
var CalibrationJSON []byte

// Compile compiles one of these schemas (name is its file, for errors) for
// gojsonschema. They are draft-07 with only internal $refs, so compiling
// never touches the network.
func Compile(name string, data []byte) (*gojsonschema.Schema, error) {
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.Validate = true
	s, err := sl.Compile(gojsonschema.NewBytesLoader(data))
	if err != nil {
		return nil, fmt.Errorf("embedded schema/%s: %w", name, err)
	}
	return s, nil
}
