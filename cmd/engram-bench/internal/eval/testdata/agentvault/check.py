#!/usr/bin/env python3
"""Consistency checks for the agentvault set; also prints the counts and the
share of short queries sharing a word with a relevant memory. python3 check.py"""
import collections, csv, json, os, re

here = os.path.dirname(os.path.abspath(__file__))

def jsonl(name):
    out = []
    with open(os.path.join(here, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            assert line.strip(), f"{name}:{n}: blank line"
            out.append(json.loads(line))
    return out

corpus = jsonl("corpus.jsonl")
queries = jsonl("queries.jsonl")
for d in corpus:
    assert set(d) == {"_id", "title", "text"} and d["text"].strip(), d
for q in queries:
    assert set(q) == {"_id", "text"} and q["text"].strip(), q
cids = [d["_id"] for d in corpus]
qids = [q["_id"] for q in queries]
assert len(cids) == len(set(cids)), "duplicate corpus ids"
assert len(qids) == len(set(qids)), "duplicate query ids"
texts = [d["text"] for d in corpus]
assert len(texts) == len(set(texts)), "duplicate memory texts"
qtexts = [q["text"].lower() for q in queries]
assert len(qtexts) == len(set(qtexts)), "duplicate query texts"

rel = collections.defaultdict(set)
with open(os.path.join(here, "qrels", "test.tsv"), encoding="utf-8", newline="") as f:
    rows = list(csv.reader(f, delimiter="\t"))
assert rows[0] == ["query-id", "corpus-id", "score"], rows[0]
seen = set()
for r in rows[1:]:
    assert len(r) == 3 and r[2] == "1", r
    assert r[0] in set(qids), f"unknown query {r[0]}"
    assert r[1] in set(cids), f"unknown memory {r[1]}"
    assert (r[0], r[1]) not in seen, f"duplicate pair {r}"
    seen.add((r[0], r[1]))
    rel[r[0]].add(r[1])
missing = [q for q in qids if not rel[q]]
assert not missing, f"queries without a relevant memory: {missing}"

split = json.load(open(os.path.join(here, "split.json"), encoding="utf-8"))
assert set(split) == {"dev", "heldout"}
dev, held = set(split["dev"]), set(split["heldout"])
assert not dev & held and dev | held == set(qids), "split must partition the queries"

text = {d["_id"]: d["text"] for d in corpus}
tok = lambda s: set(re.findall(r"[a-z0-9]+", s.lower()))
short = [q for q in queries if len(q["text"].split()) <= 2]
long_ = [q for q in queries if len(q["text"].split()) > 2]
assert all(5 <= len(q["text"].split()) <= 15 for q in long_)
lexical = [q for q in short
           if any(w in tok(text[m]) for m in rel[q["_id"]] for w in tok(q["text"]))]
for name, part in (("dev", dev), ("heldout", held)):
    print(f"{name}: {len(part)} queries, short {sum(q['_id'] in part for q in short)}, "
          f"long {sum(q['_id'] in part for q in long_)}")
print(f"memories {len(corpus)}, queries {len(queries)} (short {len(short)}, long {len(long_)}), "
      f"qrels pairs {len(seen)}, mean relevant/query {len(seen)/len(queries):.2f}")
print(f"short queries: {sum(len(rel[q['_id']])==1 for q in short)} with one relevant memory, "
      f"{sum(len(rel[q['_id']])>1 for q in short)} with several")
print(f"short queries sharing a word with a relevant memory: {len(lexical)}/{len(short)} "
      f"({100*len(lexical)/len(short):.0f}%)")
print("all checks passed")
