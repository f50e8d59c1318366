#!/usr/bin/env python3
"""A text-to-SQL agent in plain Python (standard library only: urllib, sqlite3, json).

It is the kind of script a team already has: it talks to an OpenAI-compatible chat endpoint
(OPENAI_BASE_URL, OPENAI_API_KEY), lets the model list the tables and run probe queries against
the database with tools, and ends with one SQL statement. replaygate runs it unchanged as a
`kind: command` agent: the base URL is replaygate's recording endpoint, the database is
REPLAYGATE_DB (a read-only SQLite URI), and the answer is the JSON object on the last line.
"""
import json
import os
import re
import sqlite3
import sys
import urllib.error
import urllib.request

SYSTEM_PROMPT = (
    "You are a careful data analyst for a music store. You answer questions about its SQLite "
    "database. Use list_tables to see the schema and run_query to try queries. When you are sure, "
    "reply with one SQLite SELECT statement in a ```sql block. If the data cannot answer the "
    "question, reply DECLINE: and the reason."
)
MODEL = sys.argv[sys.argv.index("--model") + 1] if "--model" in sys.argv else os.environ.get("AGENT_MODEL", "gpt-4o-mini")
MAX_STEPS = 6
PROBE_ROWS = 5

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_tables",
            "description": "List the tables of the database with their columns.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "run_query",
            "description": f"Run one read-only SQLite query; returns the first {PROBE_ROWS} rows.",
            "parameters": {
                "type": "object",
                "properties": {"sql": {"type": "string"}},
                "required": ["sql"],
            },
        },
    },
]


def chat(messages, seed):
    """One chat completion through the OpenAI HTTP API (non-streaming)."""
    base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    body = {
        "model": MODEL,
        "messages": messages,
        "tools": TOOLS,
        "tool_choice": "auto",
        "temperature": 0.2,
        "seed": seed,
    }
    request = urllib.request.Request(
        f"{base}/chat/completions",
        data=json.dumps(body).encode("utf-8"),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', '')}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.load(response)["choices"][0]["message"]
    except urllib.error.HTTPError as error:
        detail = error.read().decode("utf-8", "replace")
        try:
            detail = json.loads(detail)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            pass
        sys.exit(f"model call failed: HTTP {error.code}: {detail}")


def list_tables(db):
    rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
    lines = []
    for (name,) in rows:
        columns = db.execute(f'PRAGMA table_info("{name}")').fetchall()
        lines.append(f"{name}({', '.join(c[1] + ' ' + c[2] for c in columns)})")
    return "\n".join(lines)


def run_query(db, sql):
    try:
        cursor = db.execute(sql)
        header = [d[0] for d in cursor.description or []]
        rows = cursor.fetchmany(PROBE_ROWS)
        return json.dumps({"columns": header, "rows": rows}, default=str)
    except sqlite3.Error as error:
        return f"error: {error}"


def main():
    question = json.load(sys.stdin)  # {"id", "question", "db", "hint"}: the golden question, no answer
    seed = int(os.environ.get("REPLAYGATE_SEED", "0"))
    db = sqlite3.connect(os.environ["REPLAYGATE_DB"], uri=True)  # file:…?mode=ro
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": question["question"]},
    ]
    for _ in range(MAX_STEPS):
        reply = chat(messages, seed)
        calls = reply.get("tool_calls") or []
        if not calls:
            text = reply.get("content") or ""
            if text.strip().startswith("DECLINE:"):
                print(json.dumps({"decline": text.strip()[len("DECLINE:"):].strip()}))
                return
            match = re.search(r"```(?:sql)?\s*\n(.*?)```", text, re.S)
            print(json.dumps({"sql": (match.group(1) if match else text).strip(), "answer": text}))
            return
        messages.append({"role": "assistant", "content": reply.get("content"), "tool_calls": calls})
        for call in calls:
            args = json.loads(call["function"]["arguments"] or "{}")
            if call["function"]["name"] == "list_tables":
                output = list_tables(db)
            elif call["function"]["name"] == "run_query":
                output = run_query(db, args.get("sql", ""))
            else:
                output = f"error: unknown tool {call['function']['name']}"
            print(f"tool {call['function']['name']}: {len(output)} characters", file=sys.stderr)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    sys.exit(f"no answer after {MAX_STEPS} model calls")


if __name__ == "__main__":
    main()
