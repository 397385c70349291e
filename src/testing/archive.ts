/** Building tar archives in tests (the data pulls read upstream's release archives). */

/** A minimal ustar archive of the given files (GNU long names for paths over 100 bytes), for tests of data pulls. */
export function tarOf(files: { path: string; data: Buffer }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const file of files) {
    const header = Buffer.alloc(512);
    const longName = file.path.length > 100;
    if (longName) {
      const name = Buffer.from(`${file.path}\0`);
      blocks.push(
        headerFor("././@LongLink", name.length, "L"),
        name,
        Buffer.alloc((512 - (name.length % 512)) % 512),
      );
    }
    header.set(headerFor(longName ? file.path.slice(0, 100) : file.path, file.data.length, "0"));
    blocks.push(header, file.data, Buffer.alloc((512 - (file.data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

function headerFor(name: string, size: number, type: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, "utf8");
  header.write("0000644\0", 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  header.write("00000000000\0", 136);
  header.write(type, 156);
  header.write("ustar\0", 257);
  header.write("00", 263);
  header.write("        ", 148);
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return header;
}
