#!/usr/bin/env python3
"""Write split.json: a seeded random half/half split of queries.jsonl,
stratified so dev and heldout hold the same share of short (1-2 word)
and long (natural-question) queries. Re-run to reproduce: python3 make_split.py"""
import json, os, random

here = os.path.dirname(os.path.abspath(__file__))
queries = [json.loads(l) for l in open(os.path.join(here, "queries.jsonl"), encoding="utf-8")]
short = [q["_id"] for q in queries if len(q["text"].split()) <= 2]
long_ = [q["_id"] for q in queries if len(q["text"].split()) > 2]

random.seed(7)
dev, heldout = [], []
for group in (short, long_):
    ids = sorted(group)
    random.shuffle(ids)
    half = len(ids) // 2
    dev += ids[:half]
    heldout += ids[half:]

with open(os.path.join(here, "split.json"), "w", encoding="utf-8") as f:
    json.dump({"dev": sorted(dev), "heldout": sorted(heldout)}, f, indent=1)
    f.write("\n")
print(f"short={len(short)} long={len(long_)} dev={len(dev)} heldout={len(heldout)}")
