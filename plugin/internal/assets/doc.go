// Package assets holds the drift tests that keep the shipped assets in
// agreement: the wording catalog (prompts/review.json), the feedback JSON
// Schema (schema/), the user docs (docs/) and the agentv-eval-builder skill
// with its examples (skills/agentv-eval-builder/). It has no runtime code.
package assets
