// Reads the metadata of an ONNX model (ModelProto.metadata_props, field 14:
// StringStringEntryProto {key = 1, value = 2}) from the file's bytes, since
// ONNX Runtime Web does not expose it. A minimal protobuf wire-format walk:
// every other field is skipped by its wire type.

function readVarint(buf, pos) {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) return [v, pos];
    mul *= 128;
  }
  throw new Error('varint too long');
}

// Calls fn(field, wireType, value, start, end) for each field of the message
// in buf[start, end); value is a number (varint) or [from, to) for bytes.
function walk(buf, start, end, fn) {
  let pos = start;
  while (pos < end) {
    let tag;
    [tag, pos] = readVarint(buf, pos);
    const field = Math.floor(tag / 8);
    const wt = tag % 8;
    if (wt === 0) {
      let v;
      [v, pos] = readVarint(buf, pos);
      fn(field, wt, v);
    } else if (wt === 1) {
      pos += 8;
    } else if (wt === 5) {
      pos += 4;
    } else if (wt === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      if (pos + len > end) throw new Error('truncated field');
      fn(field, wt, [pos, pos + len]);
      pos += len;
    } else {
      throw new Error(`unsupported wire type ${wt}`);
    }
    if (pos > end) throw new Error('truncated message');
  }
}

// bytes: Uint8Array of a .onnx file. Returns {irVersion, producer,
// producerVersion, props: {key: value}}; throws on a malformed file.
export function readOnnxMetadata(bytes) {
  const dec = new TextDecoder();
  const str = ([a, b]) => dec.decode(bytes.subarray(a, b));
  const out = { irVersion: 0, producer: '', producerVersion: '', props: {} };
  walk(bytes, 0, bytes.length, (field, wt, v) => {
    if (field === 1 && wt === 0) out.irVersion = v;
    else if (field === 2 && wt === 2) out.producer = str(v);
    else if (field === 3 && wt === 2) out.producerVersion = str(v);
    else if (field === 14 && wt === 2) {
      let key = '';
      let value = '';
      walk(bytes, v[0], v[1], (f2, w2, v2) => {
        if (f2 === 1 && w2 === 2) key = str(v2);
        else if (f2 === 2 && w2 === 2) value = str(v2);
      });
      out.props[key] = value;
    }
  });
  return out;
}
