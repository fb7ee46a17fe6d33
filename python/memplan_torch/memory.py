"""The memory semantics of a schedule on a remat-graph/v1 dict (memplan's, src/remat/simulator.h), without
torch: which values die after each step, and the peak, with views at full size or storage by storage."""


def free_plan(graph, sequence):
    """For each position p of the sequence, the values that die right after step p: the last use served by
    their current production has passed (or the production has no use). Inputs and tangents never die; a
    graph output's last production lives to the end, its earlier productions die like any value's (the
    semantics of memplan's simulator, remat/simulator.h)."""
    keep = {v["id"] for v in graph["values"] if v["kind"] in ("input", "tangent")}
    outputs = set(graph["outputs"])
    nodes = graph["nodes"]
    events = {}  # value -> list of (pos, 'p'|'u')
    for pos, nid in enumerate(sequence):
        for v in nodes[nid]["inputs"]:
            events.setdefault(v, []).append((pos, "u"))
        for v in nodes[nid]["outputs"]:
            events.setdefault(v, []).append((pos, "p"))
    dies = [[] for _ in sequence]
    for v, evs in events.items():
        if v in keep:
            continue
        last_production = max(k for k, (_, kind) in enumerate(evs) if kind == "p") if v in outputs else None
        for k, (pos, kind) in enumerate(evs):
            nxt = evs[k + 1][1] if k + 1 < len(evs) else None
            if last_production is not None and k >= last_production:
                continue  # the output's final production: live to the end
            if nxt != "u":  # the production or use at pos is the last one this production serves
                dies[pos].append(v)
    return dies


def simulate_peak(graph, sequence, by_storage=False):
    """Peak memory of a sequence under the shared semantics: inputs and tangents throughout, a value from
    its production through the last use it serves, outputs to the end, plus the step's workspace.
    by_storage: count each storage once, as the trace recorder measures: a view's production holds the
    storage its base (the view or the owner its node reads) held when it was made, and a storage lives while
    any production holding it does; a view made before its owner was recomputed holds the old storage."""
    size = {v["id"]: v["size"] for v in graph["values"]}
    view_of = {v["id"]: v["view_of"] for v in graph["values"] if "view_of" in v}
    persistent = {v["id"] for v in graph["values"] if v["kind"] in ("input", "tangent")}

    def root(v):
        while v in view_of:
            v = view_of[v]
        return v

    base = sum(size[v] for v in persistent)
    dies = free_plan(graph, sequence)
    live, peak = set(), base
    holds = {}  # value -> the storage its current production holds: (owner, production number); None: persistent
    productions = {}
    for pos, nid in enumerate(sequence):
        node = graph["nodes"][nid]
        for v in node["outputs"]:
            productions[v] = productions.get(v, 0) + 1
            if not by_storage or v not in view_of:
                holds[v] = (v, productions[v])
                continue
            same = [u for u in node["inputs"] if root(u) == root(v)]
            b = next((u for u in same if u in view_of), same[0] if same else None)
            holds[v] = None if b is None or b in persistent else holds[b]
        live.update(node["outputs"])
        storages = {holds[v] for v in live} - {None}
        peak = max(peak, base + sum(size[owner] for owner, _ in storages) + node.get("workspace", 0))
        live.difference_update(dies[pos])
    return peak
