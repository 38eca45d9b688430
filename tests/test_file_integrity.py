"""The files we write and read back: a digest of their content checked at load, one ValueError
sentence for any damage, values checked at load and before a save, and no good file replaced by a
bad or half-written one. The fuzz tests flip bits of a small policy file and a small blueprint:
each flip is refused with that sentence or loads the identical policy; never another policy, never
another exception. The default run flips a sample of the bits; `-m slow` flips every one."""

from __future__ import annotations

import collections
import pathlib
import re

import numpy as np
import pytest

from experiments import resave
from solvers import archives
from solvers.equilibrium import blueprint
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.blueprint_training import BlueprintTrainer, NonFiniteTables
from solvers.linear_q import LinearQ
from sushigo_spiel.reduced_games import load_reduced

TINY = ("python_sushi_go(players=2,rounds=1,hand_size=3,deal=hand,utility=margin,"
        "deck=tempura:2/sashimi:2/squid:1/wasabi:1)")
SAMPLE_STEP = 41  # the default run flips every 41st bit (a prime: every bit offset in a byte)
SHARDS = 4  # `-m slow` flips every bit, in this many interleaved shards spread over the workers
FLIPS = [(SAMPLE_STEP, 0)] + [pytest.param(SHARDS, shard, marks=pytest.mark.slow)
                              for shard in range(SHARDS)]


@pytest.fixture(scope="module")
def small_policy(tmp_path_factory):
  path = tmp_path_factory.mktemp("policy") / "p.npz"
  policy = policy_io.train(TINY, "cfr+", "identity", iterations=5, seed=1, out_path=str(path),
                           progress=False)
  return path, policy


@pytest.fixture(scope="module")
def small_blueprint(tmp_path_factory):
  path = tmp_path_factory.mktemp("blueprint") / "b.npz"
  solver = blueprint.CompiledMCCFR(load_reduced("tiny"), "es-mccfr", seed=3, table_bits=8)
  trainer = BlueprintTrainer(solver).run(iterations=50)
  trainer.save(str(path))
  return path, trainer


def same_policy(a, b) -> bool:
  if a.strategy.keys() != b.strategy.keys() or a.metadata != b.metadata or \
      str(a.game) != str(b.game) or a.abstraction.name != b.abstraction.name:
    return False
  return all(a.strategy[k][0] == b.strategy[k][0] and
             np.array_equal(a.strategy[k][1], b.strategy[k][1]) for k in a.strategy)


def same_blueprint(a, b) -> bool:
  return np.array_equal(a.averages, b.averages) and a.metadata == b.metadata and \
      np.array_equal(a.valuation, b.valuation) and str(a.game) == str(b.game)


def flip_each_bit(path: pathlib.Path, load, same, step: int,
                  first: int = 0) -> collections.Counter:
  """Loads `path` with each `step`-th bit from `first` on flipped in turn: counts of refused (one
  ValueError naming the copy), identical, and anything else (listed in the failure)."""
  original = path.read_bytes()
  reference = load(str(path))
  copy = path.with_name("flipped.npz")
  counts, others = collections.Counter(), []
  refusal = re.compile(re.escape(str(copy)) + r" is not a valid ")
  for bit in range(first, 8 * len(original), step):
    data = bytearray(original)
    data[bit // 8] ^= 1 << (bit % 8)
    # A new file each time: truncating an existing one makes ext4 flush it to disk on close, which
    # made the flips wait on the disk (milliseconds each) rather than test the loaders.
    copy.unlink(missing_ok=True)
    copy.write_bytes(bytes(data))
    try:
      loaded = load(str(copy))
    except ValueError as e:
      if refusal.match(str(e)):
        counts["refused"] += 1
        continue
      others.append((bit, f"ValueError: {e}"))
    except Exception as e:  # pylint: disable=broad-exception-caught
      others.append((bit, f"{type(e).__name__}: {e}"))
    else:
      if same(loaded, reference):
        counts["identical"] += 1
      else:
        others.append((bit, "a different policy"))
  counts["other"] = len(others)
  counts["tried"] = counts["refused"] + counts["identical"] + len(others)
  assert not others, f"{len(others)} flips neither refused nor identical: {others[:10]}"
  return counts


FILE_KINDS = {  # kind -> (its fixture, its load, what makes two loads the same)
    "policy file": ("small_policy", policy_io.load_policy, same_policy),
    "blueprint": ("small_blueprint", blueprint.load_blueprint, same_blueprint),
}


@pytest.mark.parametrize("kind", FILE_KINDS)
@pytest.mark.parametrize("step,first", FLIPS)
def test_every_flipped_bit_of_a_file_is_refused_or_harmless(request, kind, step, first):
  fixture, load, same = FILE_KINDS[kind]
  path, _ = request.getfixturevalue(fixture)
  counts = flip_each_bit(path, load, same, step, first)
  print(f"{kind}, {path.stat().st_size} bytes: {dict(counts)}")
  assert counts["refused"] > counts["identical"] > 0


def test_damage_of_every_kind_is_one_sentence_naming_the_file(small_policy, tmp_path):
  path, _ = small_policy
  data = path.read_bytes()
  cases = {
      "missing.npz": None,
      "cut.npz": data[:len(data) // 2],
      "empty.npz": b"",
      "text.npz": b"not a policy\n",
      "npy.npz": b"\x93NUMPY\x01\x00" + data[8:100],
  }
  for name, content in cases.items():
    target = tmp_path / name
    if content is not None:
      target.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(str(target))):
      policy_io.load_policy(str(target))
  pickled = tmp_path / "pickled.npz"
  np.savez(pickled, keys=np.array([object()], dtype=object))
  with pytest.raises(ValueError, match="pickled data, which is never loaded"):
    policy_io.load_policy(str(pickled))
  folder = tmp_path / "folder.npz"
  folder.mkdir()
  with pytest.raises(ValueError, match="cannot be read"):
    policy_io.load_policy(str(folder))


def test_an_edit_with_its_digest_recomputed_is_still_checked(small_policy, tmp_path):
  """A file whose digest matches but whose values are not a policy (written by hand or by another
  tool) is refused by the value checks, naming what is wrong."""
  path, _ = small_policy
  archive = archives.load(path, "policy file")
  bad = dict(archive.arrays)
  bad["probabilities"] = bad["probabilities"].copy()
  bad["probabilities"][0] += 0.5
  target = tmp_path / "edited.npz"
  archives.save(target, bad, archive.metadata)
  with pytest.raises(ValueError, match=r"edited.npz is not a valid policy file: the"
                     r" probabilities of key .* sum to"):
    policy_io.load_policy(str(target))
  bad["probabilities"][0] = np.nan
  archives.save(target, bad, archive.metadata)
  with pytest.raises(ValueError, match="'probabilities' values are not all finite"):
    policy_io.load_policy(str(target))
  archives.save(target, {**archive.arrays, "counts": archive.arrays["counts"][:-1]},
                archive.metadata)
  with pytest.raises(ValueError, match="'counts' array has .* entries, not"):
    policy_io.load_policy(str(target))


def test_an_invalid_policy_is_never_saved_over_a_good_file(small_policy, tmp_path):
  path, policy = small_policy
  target = tmp_path / "good.npz"
  target.write_bytes(path.read_bytes())
  key = next(iter(policy.strategy))
  actions, probabilities = policy.strategy[key]
  broken = policy_io.LiftedPolicy(policy.game, policy.abstraction,
                                  {**policy.strategy, key: (actions, probabilities * np.nan)},
                                  policy.metadata)
  with pytest.raises(ValueError, match=f"refusing to save the policy file {target}: its"
                     " 'probabilities' values are not all finite"):
    policy_io.save_policy(str(target), broken)
  assert target.read_bytes() == path.read_bytes()
  assert sorted(p.name for p in tmp_path.iterdir()) == ["good.npz"]


def test_a_blueprint_with_non_finite_or_negative_tables_is_never_saved(small_blueprint, tmp_path):
  path, trainer = small_blueprint
  target = tmp_path / "good.npz"
  target.write_bytes(path.read_bytes())
  solver = blueprint.load_checkpoint(str(target))[0]
  for table, value, message in ((solver.regrets, np.inf, "regret"),
                                (solver.averages, -1.0, "average"),
                                (solver.offered, np.nan, "offered")):
    saved = table[5]
    table[5] = value
    with pytest.raises(ValueError, match=f"refusing to save the blueprint file {target}: its"
                       f" '{message}' values are not all finite"):
      blueprint.save_blueprint(solver, str(target))
    with pytest.raises(NonFiniteTables, match="training stopped at iteration 50"):
      BlueprintTrainer(solver).save(str(target))
    table[5] = saved
  assert target.read_bytes() == path.read_bytes()
  assert np.array_equal(blueprint.load_blueprint(str(target)).averages, trainer.solver.averages)


def test_training_stops_before_it_checkpoints_a_non_finite_table(small_blueprint, tmp_path):
  path, _ = small_blueprint
  target = tmp_path / "b.npz"
  target.write_bytes(path.read_bytes())
  trainer = BlueprintTrainer.resume(str(target))
  trainer.solver.regrets[7] = np.inf  # as an overflow would leave it
  saves = []
  with pytest.raises(NonFiniteTables, match="its regrets hold 1 values that are not finite"):
    trainer.run(iterations=200, checkpoint=lambda: saves.append(trainer.save(str(target))),
                checkpoint_seconds=0.0)
  assert saves == [] and target.read_bytes() == path.read_bytes()


def test_periodic_checkpoints_carry_the_iterations_and_seconds_so_far(small_blueprint, tmp_path):
  path, _ = small_blueprint
  target = tmp_path / "b.npz"
  trainer = BlueprintTrainer.resume(str(path))
  seen = []

  def checkpoint():
    trainer.save(str(target))
    seen.append(BlueprintTrainer.resume(str(target)))
  trainer.run(iterations=150, checkpoint=checkpoint, checkpoint_seconds=0.0)
  assert [t.solver.iterations for t in seen] == [100, 150, 200]
  assert all(0 < a.seconds <= b.seconds for a, b in zip(seen, seen[1:]))
  stops = iter([False, True])
  trainer.run(iterations=500, stop=lambda: next(stops))
  assert trainer.solver.iterations == 300


def test_files_saved_before_digests_are_refused_until_re_saved(small_policy, small_blueprint,
                                                               tmp_path, capsys):
  """An old file (no digest) is refused with the command that re-saves it; re-saved, it loads
  as the same policy (a blueprint without a valuation gets the empty one of `cards`)."""
  for (path, _), load, same, dropped in (
      (small_policy, policy_io.load_policy, same_policy, ()),
      (small_blueprint, blueprint.load_blueprint, same_blueprint, ("valuation",))):
    archive = archives.load(path, "file")
    old = tmp_path / f"old-{path.name}"
    members = {name: value for name, value in archive.arrays.items() if name not in dropped}
    np.savez_compressed(old, metadata=np.array(__import__("json").dumps(archive.metadata)),
                        **members)
    with pytest.raises(ValueError, match=f"{old} was saved before .* carried a digest of their"
                       f" content, so it cannot be checked; re-save it with `python -m"
                       f" experiments.resave {old}`"):
      load(str(old))
    assert resave.main([str(old)]) == 0
    assert "re-saved with its digest" in capsys.readouterr().out
    assert same(load(str(old)), load(str(path)))
    assert resave.main([str(old)]) == 0
    assert "left as it is" in capsys.readouterr().out


def test_a_linear_q_model_carries_its_digest(tmp_path):
  path = tmp_path / "m.npz"
  model = LinearQ(np.ones((3, 4)), {"game": "python_sushi_go(players=2)",
                                    "observation_type": "observation"})
  model.save(str(path))
  assert np.array_equal(LinearQ.load(str(path)).weights, model.weights)
  data = bytearray(path.read_bytes())
  data[len(data) // 3] ^= 4
  path.write_bytes(bytes(data))
  with pytest.raises(ValueError, match=f"{path} is not a valid linear Q model"):
    LinearQ.load(str(path))
  with pytest.raises(ValueError, match="refusing to save the linear Q model"):
    LinearQ(np.full((3, 4), np.nan), model.metadata).save(str(tmp_path / "nan.npz"))
  assert not (tmp_path / "nan.npz").exists()


def test_a_file_whose_digest_is_gone_is_damaged_not_old(small_policy, tmp_path):
  path, _ = small_policy
  target = tmp_path / "no-digest.npz"
  with np.load(path) as data:
    np.savez_compressed(target, **{name: data[name] for name in data.files if name != "sha256"})
  with pytest.raises(ValueError, match=f"{target} is not a valid policy file: its 'sha256' member"
                     " is missing"):
    policy_io.load_policy(str(target))
