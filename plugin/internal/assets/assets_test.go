package assets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/xeipuuv/gojsonschema"

	"agentv-review/docs"
	"agentv-review/prompts"
	"agentv-review/schema"
	skill "agentv-review/skills/agentv-eval-builder"
)

// node is a decoded JSON Schema object.
type node = map[string]any

func loadSchema(t *testing.T) node {
	t.Helper()
	var root node
	if err := json.Unmarshal(schema.JSON, &root); err != nil {
		t.Fatalf("schema/feedback.schema.json: %v", err)
	}
	return root
}

// resolve follows an internal "#/definitions/x" $ref.
func resolve(t *testing.T, root, n node) node {
	t.Helper()
	ref, ok := n["$ref"].(string)
	if !ok {
		return n
	}
	name, ok := strings.CutPrefix(ref, "#/definitions/")
	if !ok {
		t.Fatalf("schema $ref %q is not internal", ref)
	}
	def, ok := root["definitions"].(node)[name].(node)
	if !ok {
		t.Fatalf("schema $ref %q does not resolve", ref)
	}
	return resolve(t, root, def)
}

// child returns n's sub-schema at the given path of keys, resolving $refs.
func child(t *testing.T, root, n node, path ...string) node {
	t.Helper()
	for _, k := range path {
		next, ok := resolve(t, root, n)[k].(node)
		if !ok {
			t.Fatalf("schema has no %q under %v", k, path)
		}
		n = next
	}
	return resolve(t, root, n)
}

func enum(t *testing.T, n node) []string {
	t.Helper()
	raw, ok := n["enum"].([]any)
	if !ok {
		t.Fatalf("schema node has no enum: %v", n)
	}
	out := make([]string, len(raw))
	for i, v := range raw {
		out[i] = fmt.Sprint(v)
	}
	return out
}

func caseSchema(t *testing.T, root node) node {
	return child(t, root, root, "properties", "per_case", "items")
}

// fieldNames lists every property name under n, recursing into nested
// objects and array items.
func fieldNames(t *testing.T, root, n node) []string {
	t.Helper()
	n = resolve(t, root, n)
	var names []string
	if props, ok := n["properties"].(node); ok {
		for name, sub := range props {
			names = append(names, name)
			names = append(names, fieldNames(t, root, sub.(node))...)
		}
	}
	if items, ok := n["items"].(node); ok {
		names = append(names, fieldNames(t, root, items)...)
	}
	return names
}

func catalog(t *testing.T) *prompts.Catalog {
	t.Helper()
	c, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readDoc(t *testing.T, topic string) string {
	t.Helper()
	b, err := docs.Read(topic)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fenced returns the bodies of the fenced code blocks tagged lang.
func fenced(md, lang string) []string {
	var blocks []string
	var cur *strings.Builder
	for _, line := range strings.SplitAfter(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line)
		}
	}
	return blocks
}

func TestSchemaEnumsMatchCatalog(t *testing.T) {
	root := loadSchema(t)
	c := catalog(t)
	cs := caseSchema(t, root)
	if got, want := enum(t, child(t, root, cs, "properties", "verdict")), prompts.IDs(c.Verdicts); !slices.Equal(got, want) {
		t.Errorf("schema verdict enum = %v, prompts/review.json verdicts = %v", got, want)
	}
	if got, want := enum(t, child(t, root, cs, "properties", "signals", "items")), prompts.IDs(c.Signals); !slices.Equal(got, want) {
		t.Errorf("schema signals enum = %v, prompts/review.json signals = %v", got, want)
	}
	if got, want := enum(t, child(t, root, cs, "properties", "test_defect")), prompts.IDs(c.TestDefects); !slices.Equal(got, want) {
		t.Errorf("schema test_defect enum = %v, prompts/review.json test_defects = %v", got, want)
	}
	if got, want := enum(t, child(t, root, cs, "properties", "blind_verdict")), prompts.IDs(c.Verdicts); !slices.Equal(got, want) {
		t.Errorf("schema blind_verdict enum = %v, prompts/review.json verdicts = %v", got, want)
	}
}

func TestDocsNameEverySignalAndVerdict(t *testing.T) {
	c := catalog(t)
	for _, topic := range []string{"human-review", "feedback-schema"} {
		md := readDoc(t, topic)
		for _, s := range c.Signals {
			for _, want := range []string{s.Label, "`" + s.ID + "`"} {
				if !strings.Contains(md, want) {
					t.Errorf("docs/%s.md does not mention signal %s", topic, want)
				}
			}
		}
		for _, v := range c.Verdicts {
			if want := "`" + v.ID + "`"; !strings.Contains(md, want) {
				t.Errorf("docs/%s.md does not mention verdict %s", topic, want)
			}
		}
	}
}

func TestFeedbackDocCoversEverySchemaField(t *testing.T) {
	root := loadSchema(t)
	md := readDoc(t, "feedback-schema")
	for _, name := range fieldNames(t, root, root) {
		if !strings.Contains(md, "`"+name+"`") {
			t.Errorf("docs/feedback-schema.md does not document schema field `%s`", name)
		}
	}
}

func TestFeedbackDocExamplesValidate(t *testing.T) {
	loader := gojsonschema.NewSchemaLoader()
	loader.Draft = gojsonschema.Draft7
	compiled, err := loader.Compile(gojsonschema.NewBytesLoader(schema.JSON))
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	blocks := fenced(readDoc(t, "feedback-schema"), "json")
	if len(blocks) < 2 {
		t.Fatalf("docs/feedback-schema.md has %d json blocks, want a minimal and a full example", len(blocks))
	}
	var full string
	for i, b := range blocks {
		res, err := compiled.Validate(gojsonschema.NewStringLoader(b))
		if err != nil {
			t.Fatalf("json block %d: %v", i+1, err)
		}
		for _, e := range res.Errors() {
			t.Errorf("json block %d: %s", i+1, e)
		}
		if len(b) > len(full) {
			full = b
		}
	}

	// The full example is the longest block and must use every field.
	var doc any
	if err := json.Unmarshal([]byte(full), &doc); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	collectKeys(doc, used)
	root := loadSchema(t)
	for _, name := range fieldNames(t, root, root) {
		if !used[name] {
			t.Errorf("the full example in docs/feedback-schema.md does not use field %q", name)
		}
	}
}

func collectKeys(v any, keys map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			keys[k] = true
			collectKeys(sub, keys)
		}
	case []any:
		for _, sub := range v {
			collectKeys(sub, keys)
		}
	}
}

func TestSkillFrontMatter(t *testing.T) {
	fm := frontMatter(t, string(skill.Card()))
	if fm["name"] != skill.Name {
		t.Errorf("SKILL.md name = %q, want %q", fm["name"], skill.Name)
	}
	if strings.TrimSpace(fm["description"]) == "" {
		t.Error("SKILL.md has no description")
	}
}

// frontMatter parses the flat YAML front matter of an Agent Skill: top-level
// keys with a plain value or a block scalar (| or >, with chomping).
func frontMatter(t *testing.T, md string) map[string]string {
	t.Helper()
	rest, ok := strings.CutPrefix(md, "---\n")
	if !ok {
		t.Fatal("SKILL.md does not start with ---")
	}
	body, _, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatal("SKILL.md front matter is not closed by ---")
	}
	fm := map[string]string{}
	var key string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, " ") || line == "" {
			if key != "" {
				fm[key] = strings.TrimSpace(fm[key] + " " + strings.TrimSpace(line))
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("SKILL.md front matter line %q is not key: value", line)
		}
		key, v = k, strings.TrimSpace(v)
		if strings.ContainsAny(v, "|>") && strings.Trim(v, "|>+-") == "" {
			v = ""
		}
		fm[key] = strings.Trim(v, `"'`)
	}
	return fm
}

// repoRoot is the module root, found from the test's working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// skillYAMLBlocks returns every fenced yaml block of SKILL.md and its
// references, keyed by where it was found.
func skillYAMLBlocks(t *testing.T) map[string]string {
	t.Helper()
	blocks := map[string]string{}
	for _, name := range skill.Files() {
		b, err := skill.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, block := range fenced(string(b), "yaml") {
			blocks[fmt.Sprintf("%s block %d", name, i+1)] = block
		}
	}
	return blocks
}

func TestSkillYAMLBlocksAreExampleFiles(t *testing.T) {
	examples, err := filepath.Glob(filepath.Join(repoRoot(t), "skills", skill.Name, "examples", "*.eval.yaml"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples/*.eval.yaml (err %v)", err)
	}
	shown := map[string]bool{}
	for where, block := range skillYAMLBlocks(t) {
		found := false
		for _, path := range examples {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(data, []byte(block)) {
				shown[path], found = true, true
			}
		}
		if !found {
			t.Errorf("%s is not a copy of any skills/%s/examples/*.eval.yaml", where, skill.Name)
		}
	}
	for _, path := range examples {
		if !shown[path] {
			t.Errorf("%s is not shown in SKILL.md or references/", filepath.Base(path))
		}
	}
}

// agentvBinary finds a real agentv CLI: $AGENTV_BIN, then agentv on PATH,
// then $AGENTV_NODE_DIR/node_modules/.bin/agentv.
func agentvBinary() string {
	if bin := os.Getenv("AGENTV_BIN"); bin != "" {
		return bin
	}
	if bin, err := exec.LookPath("agentv"); err == nil {
		return bin
	}
	if dir := os.Getenv("AGENTV_NODE_DIR"); dir != "" {
		bin := filepath.Join(dir, "node_modules", ".bin", "agentv")
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	return ""
}

func TestSkillExamplesPassAgentvValidate(t *testing.T) {
	bin := agentvBinary()
	if bin == "" {
		if os.Getenv("CI") == "" {
			t.Skip("no agentv CLI: set AGENTV_BIN or AGENTV_NODE_DIR, or put agentv on PATH")
		}
		t.Fatal("no agentv CLI under CI: set AGENTV_BIN (npm install agentv@4.42.4)")
	}
	// agentv validate needs a git root above the files; an empty .git
	// folder in a private copy keeps the check independent of the checkout.
	src := filepath.Join(repoRoot(t), "skills", skill.Name, "examples")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eval.yaml"))
	sort.Strings(files)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"validate", "--max-warnings", "0"}, files...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s validate: %v\n%s", bin, err, out)
	}
	for _, f := range files {
		if !strings.Contains(string(out), filepath.Base(f)) {
			t.Errorf("agentv validate output does not mention %s:\n%s", filepath.Base(f), out)
		}
	}
}
