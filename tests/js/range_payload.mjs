// Runs the page's payload writer (web/js/range_payload.js) and fast gzip (web/js/fast_gzip.js) under
// Node on key-range tables written by tests/test_web_range_payload.py, one folder per job: a JSON
// list of folders on stdin, each holding table.json (the scalars) and <field>.bin (the byte fields
// of tokenguide._web_bridge.range_table). Writes payload.bin (the chunks joined) and fast.outlines
// in each folder and prints [{"chunks", "total", "size"}] for the test to compare.

import { readFileSync, writeFileSync } from 'node:fs';
import { RangePayload } from '../../web/js/range_payload.js';
import { FastGzip } from '../../web/js/fast_gzip.js';

const FIELDS = ['finals', 'states', 'offsets', 'los', 'his', 'nexts', 'flat_ids', 'id_start'];
const jobs = JSON.parse(readFileSync(0, 'utf8'));
const out = [];
for (const dir of jobs) {
  const table = JSON.parse(readFileSync(`${dir}/table.json`, 'utf8'));
  for (const k of FIELDS) table[k] = new Uint8Array(readFileSync(`${dir}/${k}.bin`));
  const payload = new RangePayload(table);
  const chunks = [...payload.chunks(1 << 16)];
  writeFileSync(`${dir}/payload.bin`, Buffer.concat(chunks.map((c) => c.bytes)));
  const gzip = new FastGzip();
  for (const c of chunks) await gzip.push(c.bytes);
  writeFileSync(`${dir}/fast.outlines`, await gzip.finish());
  out.push({ chunks: chunks.length, total: payload.total, size: payload.size, done: chunks.length ? chunks[chunks.length - 1].done : 0 });
}
process.stdout.write(JSON.stringify(out));
