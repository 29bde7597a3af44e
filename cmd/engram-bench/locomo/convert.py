#!/usr/bin/env python3
"""Convert LoCoMo's public release (snap-research/LoCoMo, data/locomo10.zip, CC BY-NC 4.0:
evaluation only) into the BEIR layout of ../shared/eval/search/locomo-dev, for
engram-bench retrieval and recall_any.py:

    python3 convert.py [--sessions] DIR_OF_CONVERSATION_JSON OUT
    # OUT/{turns,observations}/conv-N/{corpus.jsonl,queries.jsonl,evidence.jsonl,qrels/test.tsv}

--sessions writes each memory's session (session_id) and gives each turn of a session its own
time, a second after the one before, as a hook capturing the conversation stores it (recall's
neighbouring context); without it the output is the dev copy's layout.

DIR holds the per-conversation files of the release (26.json ... 50.json). On conv-26,
conv-30 and conv-41 the output is byte for byte the dev copy in ../shared; the other
seven are the conversations Engram was not tuned on. Keep them out of the repository.
"""
import json, os, sys, re, datetime, collections
sessions = '--sessions' in sys.argv[1:]
src, out = [a for a in sys.argv[1:] if a != '--sessions'][:2]
def placed(row, session, i):
    # With --sessions: the session, and the i-th memory of it a second after the one before.
    if sessions:
        t = datetime.datetime.strptime(row['created_at'], '%Y-%m-%dT%H:%M:%SZ') + datetime.timedelta(seconds=i)
        row['created_at'], row['session_id'] = t.strftime('%Y-%m-%dT%H:%M:%SZ'), session
    return row
def dt(s):
    return datetime.datetime.strptime(s.strip(), '%I:%M %p on %d %B, %Y').strftime('%Y-%m-%dT%H:%M:%SZ')
def w(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        for r in rows: f.write(json.dumps(r) + '\n')
for fn in sorted(os.listdir(src)):
    c = json.load(open(os.path.join(src, fn))); cid = 'conv-' + fn[:-5]
    sess = sorted(int(k.split('_')[1]) for k in c if re.fullmatch(r'session_\d+', k))
    turns, obs, obs_of_turn = [], [], collections.defaultdict(list)
    for s in sess:
        when = dt(c[f'session_{s}_date_time'])
        for i, t in enumerate(c[f'session_{s}']):
            text = f"{t['speaker']}: {t['text']}"
            if t.get('blip_caption'): text += f" [shares {t['blip_caption']}]"
            turns.append(placed({'_id': t['dia_id'], 'text': text, 'created_at': when}, f'{cid}-s{s}', i))
        i = 0
        for spk, items in c.get(f'session_{s}_observation', {}).items():
            for it in items:
                oid = f'session_{s}-o{len(obs)}'
                obs.append(placed({'_id': oid, 'text': it[0], 'created_at': when}, f'{cid}-s{s}', i))
                i += 1
                ev = it[1] if isinstance(it[1], list) else [it[1]]
                for e in ev: obs_of_turn[e].append(oid)
    turn_ids = {t['_id'] for t in turns}
    qs, evs = [], {'turns': [], 'observations': []}
    for n, q in enumerate(c['qa']):
        qid = f'{cid}-q{n}'
        qs.append({'_id': qid, 'text': q['question']})
        evs['turns'].append({'_id': qid, 'category': q['category'], 'evidence': q['evidence'], 'docs_for_turn': {e: [e] if e in turn_ids else [] for e in q['evidence']}})
        evs['observations'].append({'_id': qid, 'category': q['category'], 'evidence': q['evidence'], 'docs_for_turn': {e: obs_of_turn.get(e, []) for e in q['evidence']}})
    for kind, corpus in (('turns', turns), ('observations', obs)):
        d = f'{out}/{kind}/{cid}'
        w(f'{d}/corpus.jsonl', corpus); w(f'{d}/queries.jsonl', qs); w(f'{d}/evidence.jsonl', evs[kind])
        os.makedirs(f"{d}/qrels", exist_ok=True)
        with open(f"{d}/qrels/test.tsv", "w") as f:
            f.write('query-id\tcorpus-id\tscore\n')
            for e in evs[kind]:
                for doc in dict.fromkeys(x for v in e['docs_for_turn'].values() for x in v): f.write(f"{e['_id']}\t{doc}\t1\n")
