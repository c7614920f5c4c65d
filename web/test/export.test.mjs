// Exported networks against the C forward pass, on positions of real games
// (a training run's replay buffer and random-play games) that
// tests/export/dump_cases wrote with nn_forward's outputs:
//   - the ONNX file in ONNX Runtime (onnxruntime-node), batched and one by one;
//   - the JSON file through the JavaScript reference evaluator.
// make test-export prepares SOWZERO_EXPORT_DIR: for each network NAME,
// NAME.onnx, NAME.json and NAME.cases.json.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { evaluate, loadNetwork, maskedSoftmax } from '../js/netjson.js';
import { readOnnxMetadata } from '../js/onnxmeta.js';
import { EXPORT_DIR, requireFile, requirePackage } from './util.mjs';

const TOL = 1e-4;
const MIN_POSITIONS = 1000;

requireFile(EXPORT_DIR, 'run make test-export, which exports the networks and writes the cases');
const NETS = readdirSync(EXPORT_DIR)
  .filter((f) => f.endsWith('.cases.json'))
  .map((f) => f.slice(0, -'.cases.json'.length))
  .sort();

test('there are networks to check', () => {
  assert.ok(NETS.length >= 1, `no *.cases.json in ${EXPORT_DIR}`);
});

const loadCases = (name) => JSON.parse(readFileSync(path.join(EXPORT_DIR, `${name}.cases.json`), 'utf8'));
const legalList = (mask, n) => [...Array(n).keys()].filter((a) => (mask >>> a) & 1);

// Largest |a - b| over parallel arrays, with where it happened.
function maxDiff(acc, a, b, where) {
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= acc.max)) {
      acc.max = Number.isNaN(d) ? Infinity : d;
      acc.where = `${where}[${i}]: ${a[i]} vs ${b[i]}`;
    }
  }
}
const newAcc = () => ({ max: 0, where: '' });

for (const name of NETS) {
  test(`${name}: ONNX in onnxruntime-node matches the C network`, async (t) => {
    const ort = requirePackage('onnxruntime-node');
    const file = path.join(EXPORT_DIR, `${name}.onnx`);
    const cases = loadCases(name);
    const pos = cases.positions;
    assert.ok(pos.length >= MIN_POSITIONS, `only ${pos.length} positions`);
    const F = cases.n_features;
    const A = cases.n_actions;

    const meta = readOnnxMetadata(new Uint8Array(readFileSync(file)));
    assert.equal(meta.producer, 'sowzero');
    assert.equal(meta.irVersion, 8);
    assert.equal(meta.props.game, cases.game);
    assert.equal(meta.props.rules, cases.rules);
    assert.equal(meta.props.encoding_version, '1');
    assert.equal(meta.props.n_features, String(F));
    assert.equal(meta.props.n_actions, String(A));
    assert.match(meta.props.actions, /^mover-relative: action a = /);
    assert.match(meta.props.network, new RegExp(`^residual MLP ${F}-\\d+x\\d+-${A} `));

    const session = await ort.InferenceSession.create(file);
    assert.deepEqual(session.inputNames, ['features']);
    assert.deepEqual([...session.outputNames].sort(), ['policy_logits', 'score', 'value']);

    const x = new Float32Array(pos.length * F);
    pos.forEach((p, i) => x.set(p.features, i * F));
    const out = await session.run({ features: new ort.Tensor('float32', x, [pos.length, F]) });
    assert.deepEqual(out.policy_logits.dims, [pos.length, A]);
    assert.deepEqual(out.value.dims, [pos.length, 1]);
    assert.deepEqual(out.score.dims, [pos.length, 1]);
    const dl = newAcc();
    const dv = newAcc();
    const ds = newAcc();
    const dp = newAcc();
    pos.forEach((p, i) => {
      const lg = Array.from(out.policy_logits.data.subarray(i * A, (i + 1) * A));
      maxDiff(dl, lg, p.logits, `position ${i} logits`);
      maxDiff(dv, [out.value.data[i]], [p.value], `position ${i} value`);
      maxDiff(ds, [out.score.data[i]], [p.score], `position ${i} score`);
      maxDiff(dp, maskedSoftmax(lg, legalList(p.legal, A)), p.policy, `position ${i} policy`);
    });
    // Batch size 1, as a front end evaluating one position runs it.
    for (let i = 0; i < 50; i++) {
      const p = pos[i * 7];
      const o = await session.run({ features: new ort.Tensor('float32', Float32Array.from(p.features), [1, F]) });
      maxDiff(dl, Array.from(o.policy_logits.data), p.logits, `single ${i * 7} logits`);
      maxDiff(dv, [o.value.data[0]], [p.value], `single ${i * 7} value`);
      maxDiff(ds, [o.score.data[0]], [p.score], `single ${i * 7} score`);
    }
    t.diagnostic(`ONNX vs C on ${pos.length} positions (${cases.replay_positions} from the replay buffer): ` +
      `max |diff| logits ${dl.max.toExponential(2)}, value ${dv.max.toExponential(2)}, ` +
      `score ${ds.max.toExponential(2)}, policy ${dp.max.toExponential(2)}`);
    for (const [what, d] of [['logits', dl], ['value', dv], ['score', ds], ['policy', dp]])
      assert.ok(d.max <= TOL, `${what}: max difference ${d.max} > ${TOL} at ${d.where}`);
  });

  test(`${name}: JSON through the JavaScript evaluator matches the C network`, (t) => {
    const json = JSON.parse(readFileSync(path.join(EXPORT_DIR, `${name}.json`), 'utf8'));
    const net = loadNetwork(json);
    const cases = loadCases(name);
    assert.equal(json.game, cases.game);
    assert.equal(json.rules, cases.rules);
    assert.equal(net.nIn, cases.n_features);
    assert.equal(net.A, cases.n_actions);
    const pos = cases.positions;
    assert.ok(pos.length >= MIN_POSITIONS, `only ${pos.length} positions`);
    const dl = newAcc();
    const dv = newAcc();
    const ds = newAcc();
    const dp = newAcc();
    pos.forEach((p, i) => {
      const r = evaluate(net, p.features, legalList(p.legal, net.A));
      maxDiff(dl, r.logits, p.logits, `position ${i} logits`);
      maxDiff(dv, [r.value], [p.value], `position ${i} value`);
      maxDiff(ds, [r.score], [p.score], `position ${i} score`);
      maxDiff(dp, r.policy, p.policy, `position ${i} policy`);
    });
    t.diagnostic(`JSON-JS vs C on ${pos.length} positions: max |diff| logits ${dl.max.toExponential(2)}, ` +
      `value ${dv.max.toExponential(2)}, score ${ds.max.toExponential(2)}, policy ${dp.max.toExponential(2)}`);
    for (const [what, d] of [['logits', dl], ['value', dv], ['score', ds], ['policy', dp]])
      assert.ok(d.max <= TOL, `${what}: max difference ${d.max} > ${TOL} at ${d.where}`);
  });
}

test('JSON reader refuses broken exports', () => {
  const good = {
    format: 'sowzero-network',
    format_version: 1,
    config: { n_in: 2, hidden: 1, blocks: 0, n_actions: 1 },
    tensors: [
      { name: 'in.w', shape: [2, 1], data: [1, 2] },
      { name: 'in.b', shape: [1, 1], data: [0] },
      { name: 'head.w', shape: [1, 3], data: [1, 1, 1] },
      { name: 'head.b', shape: [1, 3], data: [0, 0, 0] },
    ],
  };
  const r = evaluate(loadNetwork(good), [1, 1], [0]);
  assert.deepEqual(r.logits, [3]);
  assert.equal(r.value, Math.tanh(3));
  assert.deepEqual(r.policy, [1]);
  assert.throws(() => loadNetwork({ ...good, format: 'x' }), /not a SowZero network export/);
  assert.throws(() => loadNetwork({ ...good, format_version: 2 }), /version 2 is not supported/);
  assert.throws(() => loadNetwork({ ...good, tensors: good.tensors.slice(1) }), /tensor in.w is missing/);
  const bad = structuredClone(good);
  bad.tensors[2].data.pop();
  assert.throws(() => loadNetwork(bad), /tensor head.w has shape/);
});

test('ONNX metadata reader refuses truncated files', () => {
  assert.throws(() => readOnnxMetadata(new Uint8Array([0x72, 0x10, 0x01])), /truncated/);
});
