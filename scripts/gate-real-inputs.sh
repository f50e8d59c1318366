#!/usr/bin/env bash
# Reproduces the real-input gate measurements of docs/gate.md from the public data in
# ../shared/data (see its PROVENANCE.md). Nothing here is needed at run time by replaygate.
#
# Usage: scripts/gate-real-inputs.sh [WORK_DIR]   (default /tmp/replaygate-gate-real)
#   RG    command that runs the CLI (default: node bin/replaygate.js, after npm run build)
#   DATA  the shared data folder (default: ../shared/data next to this repository)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-/tmp/replaygate-gate-real}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"   # absolute: the script changes folder below
DATA="${DATA:-$ROOT/../shared/data}"
RG="${RG:-node $ROOT/bin/replaygate.js}"
S="$DATA/spider"
mkdir -p "$WORK"
cd "$WORK"

# ---------------------------------------------------------------- full Spider dev (19 dbs)
mkdir -p full && cd full
DBS=$(for d in $(ls "$S/database"); do if [ -f "$S/database/$d/$d.sqlite" ]; then echo "$d"; fi; done | paste -sd, -)
$RG import spider-golden "$S" -o golden --databases "$DBS" --force >/dev/null
cp "$ROOT/prompts/spider-sql.md" prompt.md
{
  echo "warehouse:"; echo "  databases:"
  for d in ${DBS//,/ }; do echo "    $d: $S/database/$d/$d.sqlite"; done
  cat <<'YML'
golden: golden
match: relaxed
seeds: [0]
agents:
  gpt4-zero-shot: {kind: sql, model: gpt-4, prompt: prompt.md, recording: recordings/gpt4-zero-shot}
  din-sql-gpt4: {kind: sql, model: din-sql-gpt-4, prompt: prompt.md, recording: recordings/din-sql-gpt4}
  llama3-sampling: {kind: sql, model: llama-3-instruct, prompt: prompt.md, recording: recordings/llama3-sampling, temperature: 1}
  llama3-smc: {kind: sql, model: llama-3-instruct-smc, prompt: prompt.md, recording: recordings/llama3-smc, temperature: 1}
YML
} > replaygate.yml
$RG import predictions "$DATA/din-sql/GPT4_results/GPT4_zero_shot.csv" -f din-sql-csv -a gpt4-zero-shot --force --source "DIN-SQL repo: GPT-4 zero-shot (MIT)"
$RG import predictions "$DATA/din-sql/GPT4_results/DIN-SQL.csv" -f din-sql-csv -a din-sql-gpt4 --force --source "DIN-SQL repo: GPT-4 DIN-SQL (MIT)"
$RG import genparse "$DATA/genparse-samples/llama-3-sampling-n10-1000.jsonl" -a llama3-sampling --force --source "genparse llama-3-sampling-n10-1000.jsonl (Apache-2.0)"
$RG import genparse "$DATA/genparse-samples/llama-3-smc-standard-p10-b10-1000-schema.jsonl" -a llama3-smc --force --source "genparse llama-3-smc-standard-p10-b10-1000-schema.jsonl (Apache-2.0)"

echo "== GPT-4 zero-shot (base) vs DIN-SQL GPT-4 (candidate), full runnable Spider dev, one run each"
$RG gate --base gpt4-zero-shot --candidate din-sql-gpt4 --json gate-din-sql.json --markdown gate-din-sql.md --no-progress || true

echo "== genparse: Llama-3 sampling (base) vs grammar-constrained SMC (candidate), the questions genparse covers, K = 10"
# The questions the genparse file covers: those its recording holds (read through the recording API,
# whatever the recording's on-disk format).
GENPARSE_IDS=$(node --input-type=module -e "const { Recording } = await import('$ROOT/build/recording/recording.js'); const r = await Recording.open('recordings/llama3-sampling'); console.log([...new Set(r.calls().map((c) => c.questionId))].join(',')); r.close();")
$RG gate --base llama3-sampling --candidate llama3-smc --seeds 10 -q "$GENPARSE_IDS" --json gate-genparse.json --markdown gate-genparse.md --no-progress || true
cd ..

# ------------------------------- the five-database subset (195 questions), 10 local models, 2 prompts
mkdir -p local && cd local
SUB="concert_singer,pets_1,employee_hire_evaluation,orchestra,singer"
$RG import spider-golden "$S" -o golden --databases "$SUB" --force >/dev/null
cp "$ROOT/prompts/spider-sql.md" prompt.md
# The prediction files hold the subset's 195 questions in dev.json order; spread them over the
# 1034 dev positions (empty lines elsewhere) so that line i is dev question i (spider-dev-{i:4}).
align() {
  node -e "
const fs = require('fs');
const dev = JSON.parse(fs.readFileSync('$S/dev.json', 'utf8'));
const keep = new Set('$SUB'.split(','));
const lines = fs.readFileSync(process.argv[1], 'utf8').replace(/\n$/, '').split('\n');
let k = 0;
const out = dev.map((q) => (keep.has(q.db_id) ? lines[k++] : ''));
if (k !== lines.length) throw new Error(process.argv[1] + ': ' + lines.length + ' lines for ' + k + ' subset questions');
fs.writeFileSync(process.argv[2], out.join('\n') + '\n');
" "$1" "$2"
}
LM="$DATA/spider-subset-localmodels/output"
MODELS="codellama_7b deepseek-r1_1.5b falcon3_1b gemma3_4b granite3.3_2b llama3.1_8b mistral_7b phi3.5_3.8b qwen2.5_7b smollm2_1.7b"
{
  echo "warehouse:"; echo "  databases:"
  for d in ${SUB//,/ }; do echo "    $d: $S/database/$d/$d.sqlite"; done
  echo "golden: golden"; echo "match: relaxed"; echo "seeds: [0]"; echo "agents:"
  for m in $MODELS; do
    echo "  $m-fewshot: {kind: sql, model: $m few-shot, prompt: prompt.md, recording: recordings/$m-fewshot}"
    echo "  $m-llamaindex: {kind: sql, model: $m few-shot+llamaindex, prompt: prompt.md, recording: recordings/$m-llamaindex}"
  done
  echo "  qwen2.5_7b-fewshot-earlier: {kind: sql, model: qwen2.5_7b few-shot earlier run, prompt: prompt.md, recording: recordings/qwen2.5_7b-fewshot-earlier, temperature: 0.3, top_p: 0.95}"
} > replaygate.yml
mkdir -p aligned
for m in $MODELS; do
  align "$(ls "$LM/Few Shot Output/"prediksi_${m}_*.txt)" "aligned/$m-fewshot.txt"
  align "$(ls "$LM/Few Shot + Llamaindex Output/"prediksi_fewshot_${m}_*.txt)" "aligned/$m-llamaindex.txt"
  $RG import predictions "aligned/$m-fewshot.txt" -a "$m-fewshot" --force --source "Custom-Spider-Evaluation-Model: $m Few Shot" >/dev/null
  $RG import predictions "aligned/$m-llamaindex.txt" -a "$m-llamaindex" --force --source "Custom-Spider-Evaluation-Model: $m Few Shot + LlamaIndex" >/dev/null
done
align "$(ls "$DATA/spider-subset-localmodels-rerun/output/Few Shot Output/"prediksi_qwen2.5_7b_*.txt)" aligned/qwen2.5_7b-fewshot-earlier.txt
$RG import predictions aligned/qwen2.5_7b-fewshot-earlier.txt -a qwen2.5_7b-fewshot-earlier --force --source "Custom-Spider-Evaluation-Model: qwen2.5_7b Few Shot, earlier run" >/dev/null

for m in $MODELS; do
  echo "== $m: few-shot (base) vs few-shot + LlamaIndex (candidate), the five-database subset"
  $RG gate --base "$m-fewshot" --candidate "$m-llamaindex" --json "gate-$m.json" --markdown "gate-$m.md" --no-progress || true
done
echo "== qwen2.5-7b few-shot: earlier run (base) vs later run (candidate), same prompt, temperature 0.3"
$RG gate --base qwen2.5_7b-fewshot-earlier --candidate qwen2.5_7b-fewshot --json gate-qwen-rerun.json --markdown gate-qwen-rerun.md --no-progress || true

# ------------------------------------------------------------------ summary table (Markdown)
cd "$WORK"
node -e "
const fs = require('fs');
const sgn = (x) => (Math.abs(x) < 0.005 ? '0.00' : (x > 0 ? '+' : '−') + Math.abs(x).toFixed(2));
const p = (x) => (x >= 0.01 ? x.toFixed(2) : x.toExponential(1));
console.log('| comparison | n | base correct | candidate correct | fixed | broken | mean d | 95% interval | sign test p | stable breaks | verdict |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const f of process.argv.slice(1)) {
  if (!fs.existsSync(f)) { console.log('| ' + f + ' | (not produced) |'); continue; }
  const r = JSON.parse(fs.readFileSync(f, 'utf8'));
  const sum = (side) => r.questions.reduce((s, q) => s + q[side].correct, 0);
  const runs = (side) => r.questions.reduce((s, q) => s + q[side].runs, 0);
  const iv = r.interval ? sgn(r.interval.low) + ' to ' + sgn(r.interval.high) : 'none';
  console.log('| ' + r.base.label + ' → ' + r.candidate.label + ' | ' + r.n + ' | ' + sum('base') + '/' + runs('base') + ' | ' + sum('candidate') + '/' + runs('candidate') +
    ' | ' + r.fixed.length + ' | ' + r.broken.length + ' | ' + sgn(r.meanDifference) + ' | ' + iv + ' | ' + p(r.signTestP) + ' | ' + r.stableBreaks.length + ' | ' + r.verdict + ' |');
}
" full/gate-din-sql.json full/gate-genparse.json local/gate-*.json
