"""Scale-out: shards, their durable store, summary-only aggregates, local and dask backends.

- :mod:`sim.scale.shards`      shard plans: ``(seed, first match, count)``, in plan order
- :mod:`sim.scale.store`       the durable, resumable store of finished shards and its manifest
- :mod:`sim.scale.aggregates`  summary-only mode: shards reduced to additive quantities
- :mod:`sim.scale.backends`    where shards run: this process (``local``) or a dask cluster
- :mod:`sim.scale.runner`      :func:`~sim.scale.runner.run_shards`: the missing shards, on a backend
- :mod:`sim.scale.options`     :class:`~sim.scale.options.ScaleOptions`: a run's backend, threads, shards, output
- :mod:`sim.scale.simulate`    the engine's own job: :func:`sim.simulate` in shards

Because match ``i`` depends only on ``(seed, i)`` and the strategies, a
sharded run equals the unsharded one row for row, whatever the backend, the
worker count, the shard size or the order in which shards finish.

How a study plugs in
--------------------
1. Write a **module-level** job (picklable by reference, importable on the
   workers)::

       def my_job(first_match: int, count: int, *, threads=None, **config) -> pd.DataFrame:
           # rows for matches first_match .. first_match + count - 1 (one per
           # match, per round, ...: any number), a pure function of
           # (config, first_match, count)
           frame = sim.simulate(config["players"], config["strategies"], count,
                                config["seed"], threads=threads, first_match=first_match)
           ...  # add columns, reshape per match
           return frame

   ``threads`` is the Numba thread count for this shard (the backend chooses:
   all threads locally, 1 per task on dask); ``config`` must be JSON-ready
   (it is written to the manifest and compared on resume). Strategies travel
   as spec strings (:func:`strategies.catalogue.spec_of`: a built-in name,
   ``MODULE:NAME``, ``FILE.py:NAME``), never as objects: a dask worker
   resolves the spec by importing the module, so the module must be
   importable there; record each strategy's ``code_key`` in the manifest so
   that a changed strategy is not resumed.
2. Optionally an aggregate ``my_aggregate(frame) -> dict`` of additive,
   preferably integer, quantities (integers make the merged result independent
   of completion order) with string keys.
3. Plan tasks and run them::

       tasks = [Task(shard, config) for shard in plan(matches, shard_size, seed)]
       # several sub-runs: plan(..., part=k) with its own config per part
       store = ShardStore(out_dir / "shards", {"kind": "my-study", "config": ...},
                          mode="summary" if summary_only else "frames").open()
       with open_backend("dask", scheduler=addr) as backend:
           run = run_shards(my_job, tasks, backend=backend, store=store,
                            aggregate=my_aggregate if summary_only else None, progress=True)
       frame = run.frame()          # frames mode: the shards in plan order
       totals = run.aggregate       # summary mode: the merged aggregate
       store.close()                # store.remove() once the final output is written

   :func:`sim.scale.simulate.simulate_job`, :mod:`experiments.tools.tournament.seating_shards`
   and :mod:`experiments.sources` (jobs returning several tables: a store
   with ``tables=``) are worked examples; the command line adds the
   ``--backend ...`` options (:mod:`cli.arguments`).
"""

