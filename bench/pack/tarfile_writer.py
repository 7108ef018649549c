"""What WebDataset's ShardWriter/TarWriter do, with the standard library only (the
webdataset package is not installable here): one tar member per file of a sample
(`<key>.png`, `<key>.cls`), written with tarfile's addfile from an in-memory
buffer (TarInfo: size, mtime now, mode 0o444, uname/gname "bigdata", as TarWriter
sets them; the float mtime costs a PAX record per member there too), shards rolled when the next sample would pass maxsize bytes (as
ShardWriter's size check does). Input: a folder of <label>/<file>.png, walked
sorted; the label of a file is the index of its folder.

usage: python3 tarfile_writer.py <input> <out-dir> <maxsize-bytes>
"""

import io
import os
import sys
import tarfile
import time


class TarWriter:
    def __init__(self, path):
        self.stream = open(path, "wb")
        self.tar = tarfile.open(fileobj=self.stream, mode="w|")  # TarWriter's call: default format (PAX)
        self.mtime = time.time()

    def write(self, sample):
        total = 0
        key = sample["__key__"]
        for ext, value in sample.items():
            if ext == "__key__":
                continue
            info = tarfile.TarInfo(f"{key}.{ext}")
            info.size = len(value)
            info.mtime = self.mtime
            info.mode = 0o0444
            info.uname = "bigdata"
            info.gname = "bigdata"
            self.tar.addfile(info, io.BytesIO(value))
            total += info.size
        return total

    def close(self):
        self.tar.close()
        self.stream.close()


class ShardWriter:
    def __init__(self, pattern, maxsize):
        self.pattern = pattern
        self.maxsize = maxsize
        self.shard = 0
        self.size = 0
        self.writer = None
        self.next_stream()

    def next_stream(self):
        if self.writer:
            self.writer.close()
        self.writer = TarWriter(self.pattern % self.shard)
        self.shard += 1
        self.size = 0

    def write(self, sample):
        if self.size >= self.maxsize:
            self.next_stream()
        self.size += self.writer.write(sample)

    def close(self):
        self.writer.close()


def main():
    root, out, maxsize = sys.argv[1], sys.argv[2], float(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    labels = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    sink = ShardWriter(os.path.join(out, "data-%06d.tar"), maxsize)
    for index, label in enumerate(labels):
        folder = os.path.join(root, label)
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                png = f.read()
            key = f"{label}/{os.path.splitext(name)[0]}".replace("/", "_")
            sink.write({"__key__": key, "png": png, "cls": str(index).encode()})
    sink.close()


if __name__ == "__main__":
    main()
