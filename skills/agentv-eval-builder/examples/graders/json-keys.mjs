#!/usr/bin/env node
// Code grader: AgentV writes a JSON payload to stdin (the answer is in
// `output`, extra assertion fields such as `keys` are in `config`) and reads
// {score, assertions} from stdout.
import fs from "node:fs";

const payload = JSON.parse(fs.readFileSync(0, "utf8"));
const keys = payload.config?.keys ?? [];
let answer = null;
try {
  answer = JSON.parse(String(payload.output ?? ""));
} catch {
  // not JSON: every key counts as missing
}
const assertions = keys.map((key) => ({
  text: `has key "${key}"`,
  passed: answer !== null && typeof answer === "object" && Object.hasOwn(answer, key),
}));
const passed = assertions.filter((a) => a.passed).length;
console.log(JSON.stringify({ score: keys.length ? passed / keys.length : 0, assertions }));
