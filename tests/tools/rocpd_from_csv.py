#!/usr/bin/env python3
"""rocpd_from_csv.py - the same run as rocpd databases (or rocpd2csv files).

usage: rocpd_from_csv.py [--rocpd2csv] SRC DST
       rocpd_from_csv.py --sample DB

Copies the run folder SRC (a pmc run or a power run, e.g. written by
tests/tools/gen_rocprof) to DST, every rocprofv3 7.x CSV file set
(PREFIX_counter_collection.csv, PREFIX_kernel_trace.csv, PREFIX_agent_info.csv)
replaced by one SQLite database PREFIX_results.db, as rocprofv3
--output-format rocpd writes one per process. The database is created by
executing rocprofv3's own schema SQL (tests/fixtures/amd/rocpd/schema/, see its
README) and filled the way rocprofv3's writer fills it (generateRocpd.cpp):
one rocpd_kernel_dispatch row per dispatch (id = dispatch id) with its
rocpd_event, kernel symbols carrying the registers, one rocpd_pmc_event per
counter value joined through event_id, agents with id = absolute_index = node
id and the agent record as JSON in extdata (lower-case agent_info names),
one rocpd_memory_copy row per PREFIX_memory_copy_trace.csv row (name = its
Direction, size = its Bytes column or 0: rocprofv3's CSV has no size; the
host side a CPU agent) with its event.

--rocpd2csv: write instead what `rocpd2csv` (rocpd convert) makes of that
database: the same file names, counter_collection with rocpd's column order
(Pid first, holding the guid) and kernel_trace with a leading Guid column,
both with ROCm 7.1.1's title-case names (Lds_Block_Size, Vgpr_Count, ...),
memory_copy_trace with a leading Guid (rocpd's csv.cpp), every row read back
through the database's own views (counters_collection, kernels,
memory_copies). Other files (counters.json, expected.json, telemetry) are copied.

--sample DB: a small database of two dispatches with two counters each
(512-byte pages), the seed of the fuzz_rocpd target (tests/fuzz/run-all.sh).
Test data only; rocprofv3 itself is never run.
"""
import json
import os
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "fixtures", "amd", "rocpd", "schema")
SCHEMA_FILES = ("rocpd_tables.sql", "rocpd_views.sql", "data_views.sql")
GUID = "00000450-565d-765d-bc41-19a2073d19ee"
UUID = "_" + GUID.replace("-", "_")
SUFFIXES = ("_counter_collection.csv", "_kernel_trace.csv", "_agent_info.csv",
            "_memory_copy_trace.csv")


def split_row(line, ncols, free):
    """rocprofv3 rows: field `free` (Kernel_Name) may hold commas and quotes;
    split the others from the left and from the right (as src/read/csv.h)."""
    left = line.split(",", free)[:free] if free else []
    rest = line.split(",", free)[free] if free else line
    right = rest.rsplit(",", ncols - free - 1)
    fields = left + right
    if len(fields) != ncols:
        raise ValueError("bad row: %r" % line[:80])
    return [f[1:-1] if len(f) >= 2 and f[0] == '"' and f[-1] == '"' else f for f in fields]


def read_csv(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    head = [h.strip('"') for h in lines[0].split(",")]
    free = head.index("Kernel_Name") if "Kernel_Name" in head else 0
    rows = []
    for line in lines[1:]:
        if line:
            rows.append(dict(zip(head, split_row(line, len(head), free) if "Kernel_Name" in head
                                 else [f.strip('"') for f in line.split(",")])))
    return head, rows


def agent_number(text):
    digits = "".join(c for c in text if c.isdigit())
    return int(digits) if digits else 0


def num(v):
    try:
        return int(v)
    except ValueError:
        return float(v)


def new_db(path, page_size=None):
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    if page_size:
        db.execute("PRAGMA page_size=%d" % page_size)
    for name in SCHEMA_FILES:
        with open(os.path.join(SCHEMA, name), encoding="utf-8") as f:
            db.executescript(f.read().replace("{{uuid}}", UUID).replace("{{guid}}", GUID))
    return db


def t(name):
    return "rocpd_%s%s" % (name, UUID)


class Writer:
    """One process's database."""

    def __init__(self, path, page_size=None):
        self.db = new_db(path, page_size)
        self.strings = {}
        self.symbols = {}
        self.pmc = {}
        self.agents = set()
        self.db.execute("INSERT INTO %s (id, hash, machine_id, hostname) VALUES (1, 1, 'gen', 'gen')"
                        % t("info_node"))

    def string(self, s):
        if s not in self.strings:
            cur = self.db.execute("INSERT INTO %s (string) VALUES (?)" % t("string"), (s,))
            self.strings[s] = cur.lastrowid
        return self.strings[s]

    def process(self, pid, tid):
        self.pid = pid
        self.db.execute("INSERT INTO %s (id, nid, ppid, pid, init, fini, start, end, command) "
                        "VALUES (?, 1, 1, ?, 0, 0, 0, 0, 'gen')" % t("info_process"), (pid, pid))
        self.db.execute("INSERT INTO %s (id, nid, ppid, pid, tid) VALUES (?, 1, 1, ?, ?)"
                        % t("info_thread"), (tid, pid, tid))
        self.db.execute("INSERT INTO %s (id, nid, pid, agent_id, uri) VALUES (1, 1, ?, NULL, 'gen')"
                        % t("info_code_object"), (pid,))
        self.tid = tid
        self.queues = set()
        self.streams = set()

    def agent(self, row):
        """row: an agent_info.csv row (dict)."""
        node = int(row["Node_Id"])
        if node in self.agents:
            return
        self.agents.add(node)
        ext = {k.lower(): num(v) if k not in ("Agent_Type", "Name", "Product_Name") else v
               for k, v in row.items()}
        self.db.execute(
            "INSERT INTO %s (id, nid, pid, type, absolute_index, logical_index, type_index, name, "
            "model_name, vendor_name, product_name, user_name, extdata) "
            "VALUES (?, 1, ?, ?, ?, ?, ?, ?, '', 'AMD', ?, ?, ?)" % t("info_agent"),
            (node, self.pid, row["Agent_Type"], node, int(row.get("Logical_Node_Id", node)),
             node, row.get("Name", ""), row.get("Product_Name", ""), row.get("Product_Name", ""),
             json.dumps(ext)))

    def queue(self, q, s):
        if q not in self.queues:
            self.queues.add(q)
            self.db.execute("INSERT INTO %s (id, nid, pid, name) VALUES (?, 1, ?, ?)" % t("info_queue"),
                            (q, self.pid, "queue %d" % q))
        if s not in self.streams:
            self.streams.add(s)
            self.db.execute("INSERT INTO %s (id, nid, pid, name) VALUES (?, 1, ?, ?)" % t("info_stream"),
                            (s, self.pid, "stream %d" % s))

    def symbol(self, name, d):
        if name not in self.symbols:
            sid = len(self.symbols) + 1
            self.symbols[name] = sid
            self.db.execute(
                "INSERT INTO %s (id, nid, pid, code_object_id, kernel_name, display_name, "
                "group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, "
                "accum_vgpr_count) VALUES (?, 1, ?, 1, ?, ?, ?, ?, ?, ?, ?)" % t("info_kernel_symbol"),
                (sid, self.pid, name, name, d["lds"], d["scratch"], d["sgpr"], d["vgpr"], d["agpr"]))
        return self.symbols[name]

    def dispatch(self, d):
        cat = self.string("KERNEL_DISPATCH")
        cur = self.db.execute(
            "INSERT INTO %s (category_id, stack_id, parent_stack_id, correlation_id) VALUES (?, ?, ?, ?)"
            % t("event"), (cat, d["corr"], d["corr"], d["corr"]))
        d["event"] = cur.lastrowid
        self.queue(d["queue"], d["stream"])
        self.db.execute(
            "INSERT INTO %s (id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, "
            "start, end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, "
            "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id) "
            "VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" % t("kernel_dispatch"),
            (d["id"], self.pid, self.tid, d["agent"], self.symbol(d["name"], d), d["id"], d["queue"],
             d["stream"], d["start"], d["end"], d["scratch"], d["lds"], d["wg"][0], d["wg"][1],
             d["wg"][2], d["grid"][0], d["grid"][1], d["grid"][2], self.string(d["name"]), d["event"]))

    def counter(self, d, name, value):
        if name not in self.pmc:
            cur = self.db.execute(
                "INSERT INTO %s (nid, pid, agent_id, target_arch, name, symbol, description, block, "
                "is_constant, is_derived) VALUES (1, ?, ?, 'GPU', ?, ?, '', ?, 0, ?)" % t("info_pmc"),
                (self.pid, d["agent"], name, name, name.split("_")[0], int(name.endswith("_sum"))))
            self.pmc[name] = cur.lastrowid
        self.db.execute("INSERT INTO %s (event_id, pmc_id, value) VALUES (?, ?, ?)" % t("pmc_event"),
                        (d["event"], self.pmc[name], value))

    def copy(self, r):
        """r: a memory_copy_trace.csv row (dict)."""
        src, dst = agent_number(r["Source_Agent_Id"]), agent_number(r["Destination_Agent_Id"])
        host = {"MEMORY_COPY_HOST_TO_DEVICE": src, "HOST_TO_DEVICE": src,
                "MEMORY_COPY_DEVICE_TO_HOST": dst, "DEVICE_TO_HOST": dst}.get(r["Direction"])
        for node in (src, dst):
            if node not in self.agents:
                row = gpu_agent_row(node)
                if node == host:
                    row["Agent_Type"] = "CPU"
                self.agent(row)
        corr = int(r.get("Correlation_Id", 0) or 0)
        cur = self.db.execute(
            "INSERT INTO %s (category_id, stack_id, parent_stack_id, correlation_id) VALUES (?, ?, ?, ?)"
            % t("event"), (self.string("MEMORY_COPY"), corr, corr, corr))
        self.db.execute(
            "INSERT INTO %s (nid, pid, tid, start, end, name_id, dst_agent_id, src_agent_id, size, "
            "event_id) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)" % t("memory_copy"),
            (self.pid, self.tid, int(r["Start_Timestamp"]), int(r["End_Timestamp"]),
             self.string(r["Direction"]), dst, src, int(r.get("Bytes") or 0), cur.lastrowid))

    def close(self):
        self.db.commit()
        self.db.close()


def trace_dispatch(r):
    return {
        "id": int(r["Dispatch_Id"]), "corr": int(r["Correlation_Id"]), "agent": agent_number(r["Agent_Id"]),
        "queue": int(r["Queue_Id"]), "stream": int(r.get("Stream_Id", 0) or 0), "name": r["Kernel_Name"],
        "start": int(r["Start_Timestamp"]), "end": int(r["End_Timestamp"]), "lds": int(r["LDS_Block_Size"]),
        "scratch": int(r["Scratch_Size"]), "vgpr": int(r["VGPR_Count"]), "agpr": int(r["Accum_VGPR_Count"]),
        "sgpr": int(r["SGPR_Count"]),
        "wg": (int(r["Workgroup_Size_X"]), int(r["Workgroup_Size_Y"]), int(r["Workgroup_Size_Z"])),
        "grid": (int(r["Grid_Size_X"]), int(r["Grid_Size_Y"]), int(r["Grid_Size_Z"])),
    }


def counter_dispatch(r, traced):
    d = traced.get(int(r["Dispatch_Id"]))
    if d:
        return d
    return {
        "id": int(r["Dispatch_Id"]), "corr": int(r["Correlation_Id"]), "agent": agent_number(r["Agent_Id"]),
        "queue": int(r["Queue_Id"]), "stream": 0, "name": r["Kernel_Name"],
        "start": int(r["Start_Timestamp"]), "end": int(r["End_Timestamp"]), "lds": int(r["LDS_Block_Size"]),
        "scratch": int(r["Scratch_Size"]), "vgpr": int(r["VGPR_Count"]),
        "agpr": int(r.get("Accum_VGPR_Count", 0)), "sgpr": int(r["SGPR_Count"]),
        "wg": (int(r["Workgroup_Size"]), 1, 1), "grid": (int(r["Grid_Size"]), 1, 1),
    }


def gpu_agent_row(node):
    return {"Node_Id": str(node), "Logical_Node_Id": str(node), "Agent_Type": "GPU", "Name": "", "Product_Name": ""}


def write_db(prefix, files, out):
    """files: {suffix: path}; out: the database path."""
    cc = read_csv(files["_counter_collection.csv"])[1] if "_counter_collection.csv" in files else []
    kt = read_csv(files["_kernel_trace.csv"])[1] if "_kernel_trace.csv" in files else []
    ai = read_csv(files["_agent_info.csv"])[1] if "_agent_info.csv" in files else []
    mc = read_csv(files["_memory_copy_trace.csv"])[1] if "_memory_copy_trace.csv" in files else []
    w = Writer(out)
    first = cc[0] if cc else kt[0] if kt else None
    pid = int(first.get("Process_Id", first.get("Thread_Id", 1))) if first else 1
    tid = int(first.get("Thread_Id", pid)) if first else 1
    w.process(pid, tid)
    for r in ai:
        w.agent(r)
    traced = {}
    for r in kt:
        d = trace_dispatch(r)
        traced[d["id"]] = d
    for r in cc + kt:
        node = agent_number(r["Agent_Id"])
        if node not in w.agents:
            w.agent(gpu_agent_row(node))
    done = set()
    for d in traced.values():
        w.dispatch(d)
        done.add(d["id"])
    for r in cc:
        d = counter_dispatch(r, traced)
        if d["id"] not in done:
            w.dispatch(d)
            done.add(d["id"])
        w.counter(d, r["Counter_Name"], float(r["Counter_Value"]))
    for r in mc:
        w.copy(r)
    w.close()


# ---- rocpd2csv: the database back to CSV through its views -------------------------

CC2_HEAD = ["Pid", "Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id",
            "Grid_Size", "Kernel_Id", "Kernel_Name", "Workgroup_Size", "Lds_Block_Size", "Scratch_Size",
            "Vgpr_Count", "Accum_Vgpr_Count", "Sgpr_Count", "Counter_Name", "Counter_Value",
            "Start_Timestamp", "End_Timestamp"]
KT2_HEAD = ["Guid", "Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
            "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp", "Lds_Block_Size",
            "Scratch_Size", "Vgpr_Count", "Accum_Vgpr_Count", "Sgpr_Count", "Workgroup_Size_X",
            "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]


MC2_HEAD = ["Guid", "Kind", "Direction", "Stream_Id", "Source_Agent_Id", "Destination_Agent_Id",
            "Correlation_Id", "Start_Timestamp", "End_Timestamp"]


def fmt_value(v):
    """rocprofv3's csv.hpp: >= 1 with 6 decimals, below with %.8e."""
    return "%.6f" % v if abs(v) >= 1 else "%.8e" % v


def write_rocpd2csv(db_path, prefix):
    db = sqlite3.connect(db_path)
    head = lambda h: ",".join('"%s"' % c for c in h) + "\n"
    rows = db.execute("SELECT guid, correlation_id, dispatch_id, agent_abs_index, queue_id, pid, tid, "
                      "grid_size, kernel_id, kernel_name, workgroup_size, lds_block_size, scratch_size, "
                      "vgpr_count, accum_vgpr_count, sgpr_count, counter_name, value, start, end "
                      "FROM counters_collection ORDER BY dispatch_id, id").fetchall()
    if rows:
        with open(prefix + "_counter_collection.csv", "w", encoding="utf-8") as f:
            f.write(head(CC2_HEAD))
            for r in rows:
                f.write('%s,%d,%d,"Agent %d",%d,%d,%d,%d,%d,"%s",%d,%d,%d,%d,%d,%d,"%s",%s,%d,%d\n'
                        % (r[:17] + (fmt_value(r[17]),) + r[18:]))
    rows = db.execute("SELECT guid, agent_abs_index, queue_id, stream_id, tid, dispatch_id, kernel_id, name, "
                      "corr_id, start, end, lds_size, scratch_size, vgpr_count, accum_vgpr_count, sgpr_count, "
                      "workgroup_x, workgroup_y, workgroup_z, grid_x, grid_y, grid_z "
                      "FROM kernels ORDER BY dispatch_id").fetchall()
    if rows:
        with open(prefix + "_kernel_trace.csv", "w", encoding="utf-8") as f:
            f.write(head(KT2_HEAD))
            for r in rows:
                f.write('"%s","KERNEL_DISPATCH","Agent %d",%d,%d,%d,%d,%d,"%s",%d,%d,%d,%d,%d,%d,%d,%d,'
                        '%d,%d,%d,%d,%d,%d\n' % r)
    rows = db.execute("SELECT guid, name, COALESCE(stream_id, 0), src_agent_abs_index, dst_agent_abs_index, "
                      "COALESCE(corr_id, 0), start, end FROM memory_copies ORDER BY start").fetchall()
    if rows:
        with open(prefix + "_memory_copy_trace.csv", "w", encoding="utf-8") as f:
            f.write(head(MC2_HEAD))
            for r in rows:
                f.write('"%s","MEMORY_COPY","%s",%d,"Agent %d","Agent %d",%d,%d,%d\n' % r)
    db.close()


def write_agent_info2(src, prefix):
    """rocpd2csv's agent_info: the same columns after a leading Guid."""
    with open(src, encoding="utf-8") as f:
        lines = f.read().splitlines()
    with open(prefix + "_agent_info.csv", "w", encoding="utf-8") as f:
        f.write('"Guid",' + lines[0] + "\n")
        for line in lines[1:]:
            f.write('"%s",%s\n' % (GUID, line))


def write_sample(path):
    w = Writer(path, page_size=512)
    w.process(77, 77)
    w.agent({"Node_Id": "0", "Logical_Node_Id": "0", "Agent_Type": "CPU", "Name": "cpu", "Product_Name": "cpu"})
    w.agent({"Node_Id": "1", "Logical_Node_Id": "1", "Agent_Type": "GPU", "Name": "gfx942", "Cu_Count": "304",
             "Num_Xcc": "8", "Product_Name": "AMD Instinct MI300X"})
    for i, name in ((1, 'void k<"q", 2>(double*, int)'), (2, "g()")):
        d = {"id": i, "corr": i, "agent": 1, "queue": 1, "stream": 0, "name": name, "start": 1000 * i,
             "end": 1000 * i + 500, "lds": 1024 * i, "scratch": 0, "vgpr": 32, "agpr": 4, "sgpr": 16,
             "wg": (64, 2, 1), "grid": (4096, 2, 1)}
        w.dispatch(d)
        w.counter(d, "SQ_WAVES", 64.0 * i)
        w.counter(d, "GRBM_GUI_ACTIVE", 4000.0 * i)
    w.close()


def main(argv):
    if len(argv) == 2 and argv[0] == "--sample":
        write_sample(argv[1])
        return 0
    mode = "db"
    if argv and argv[0] == "--rocpd2csv":
        mode = "rocpd2csv"
        argv = argv[1:]
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    src, dst = argv
    for root, _dirs, names in os.walk(src):
        rel = os.path.relpath(root, src)
        out_dir = os.path.join(dst, rel)
        os.makedirs(out_dir, exist_ok=True)
        sets = {}
        for n in names:
            suf = next((s for s in SUFFIXES if n.endswith(s)), None)
            if suf:
                sets.setdefault(n[:-len(suf)], {})[suf] = os.path.join(root, n)
            else:
                shutil.copy2(os.path.join(root, n), os.path.join(out_dir, n))
        for prefix, files in sorted(sets.items()):
            db = os.path.join(out_dir, prefix + "_results.db")
            write_db(prefix, files, db)
            if mode == "rocpd2csv":
                write_rocpd2csv(db, os.path.join(out_dir, prefix))
                if "_agent_info.csv" in files:
                    write_agent_info2(files["_agent_info.csv"], os.path.join(out_dir, prefix))
                os.unlink(db)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
