#!/usr/bin/env bash
# Builds out/confidence-spider (docs/confidence.md, "Measured on real samples"): the full runnable
# Spider dev project of scripts/spider-dev-project.mjs plus genparse's Llama-3 samples and VeriSQL's
# DeepSeek candidates as recordings. Data from ../shared/data; a development aid (npm run docs uses it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/out/confidence-spider"
DATA="$ROOT/../shared/data"
node "$ROOT/scripts/spider-dev-project.mjs" --shared "$ROOT/../shared" --out "$OUT" >/dev/null
cd "$OUT"
# A generous time limit per statement: the figures must not depend on how busy the machine is
# (on 2 shared cores a 10 s limit has stopped a one-row golden query).
sed -i 's/^warehouse:$/warehouse:\n  timeout_ms: 120000/' replaygate.yml
cat >> replaygate.yml <<'YML'
  llama3-genparse: {kind: sql, model: llama-3-8b-instruct, prompt: prompts/spider-sql.md, recording: recordings/llama3-genparse, temperature: 1}
  deepseek-candidates: {kind: sql, model: deepseek-chat, prompt: prompts/spider-sql.md, recording: recordings/deepseek-candidates}
YML
node "$ROOT/bin/replaygate.js" import genparse "$DATA/genparse-samples/llama-3-sampling-n10-1000.jsonl" -a llama3-genparse --force >/dev/null
node "$ROOT/bin/replaygate.js" import candidates "$DATA/verisql/outputs/llm/deepseek_chat_k=5.json" -a deepseek-candidates --force >/dev/null 2>&1
