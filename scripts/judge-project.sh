#!/usr/bin/env bash
# Builds out/judge-spider (docs/judge.md, "Measured: GPT-4-Turbo as an SQL-equivalence judge"): the
# full runnable Spider dev project of scripts/spider-dev-project.mjs, the three judged systems scored
# into score.json (relaxed match) and score-exact.json (exact match), and GPT-4-Turbo's published LLM-SQL-Solver verdicts (formal and
# relaxed prompts) imported as judge recordings. Data from ../shared/data; a development aid (npm run
# docs runs `replaygate judge calibrate` on it for the README's and docs/judge.md's kappa figures).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/out/judge-spider"
SOLVER="$ROOT/../shared/data/llm-sql-solver/LLM-SQL-Solver-Data"
node "$ROOT/scripts/spider-dev-project.mjs" --shared "$ROOT/../shared" --out "$OUT" >/dev/null
cd "$OUT"
# A generous time limit per statement: the figures must not depend on how busy the machine is.
sed -i 's/^warehouse:$/warehouse:\n  timeout_ms: 120000/' replaygate.yml
DBS="$(sed -n 's/^    \([A-Za-z0-9_]*\): .*\.sqlite$/\1/p' replaygate.yml | paste -sd, -)"
node "$ROOT/bin/replaygate.js" score -a din-sql-gpt4 dail-sql-gpt4-sc chatgpt-zero-shot --json score.json --no-progress >/dev/null
node "$ROOT/bin/replaygate.js" score -a din-sql-gpt4 dail-sql-gpt4-sc chatgpt-zero-shot --match exact --json score-exact.json --no-progress >/dev/null
for system in din-sql-gpt4:DIN:DIN dail-sql-gpt4-sc:DAIL:DAIL chatgpt-zero-shot:Chat:chatgpt; do
  IFS=: read -r agent folder tag <<<"$system"
  for prompt in formal relaxed; do
    node "$ROOT/bin/replaygate.js" judge import "$SOLVER/$folder/GPT4Turbo_judge_${tag}_${prompt}.json" -a "$agent" \
      -o "recordings/judge-$agent-$prompt" --databases "$DBS" --force >/dev/null
  done
done
