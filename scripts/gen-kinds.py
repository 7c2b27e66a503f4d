#!/usr/bin/env python3
"""Generate src/domain/contradiction/kinds_wordnet.txt from WordNet 3.0.

What it does
------------
Contradiction detection needs to know when two values are *alternatives* for one
attribute: two sports ("squash" / "badminton"), two cities ("Leeds" / "Manchester"),
two beverages ("coffee" / "tea"). WordNet's noun hierarchy knows this for common nouns.
This script takes a curated list of target synsets ("kinds", below in TARGETS), chosen
so that their members exclude each other for one attribute, and collects every noun
lemma whose hypernym closure (instance hypernyms included: Leeds -> city) reaches a
target. It writes one line per lemma, sorted:

    lemma<TAB>kind[,kind...][<TAB>near[,near...]]

* lemma: lowercase, underscores turned into spaces; at most three words.
* kind: the kinds the lemma belongs to (names from TARGETS).
* near (optional): other lemmas of the same kind that are *not rivals* of this one:
  its synonyms (same synset) and the more general lemmas between it and the target
  ("espresso" -> "coffee"; "poodle" -> "dog"; "lager" -> "beer", "alcohol"), from its
  most frequent sense in the kind, and only those in use (a frequency-tagged sense in
  index.noun). The reader uses them so that "coffee" / "espresso" is a refinement,
  not a change.

Noise control: the target's own lemmas ("beverage", "sport") are not members; a stop
list (STOP) drops common generic English words from every kind; a sense that is not
among a polysemous lemma's frequency-tagged senses ("machine" as a car), or that has
under a tenth of the lemma's tagged uses in cntlist.rev ("church" as a religion), is
skipped; lemmas of more than three words and lemmas without a letter are
dropped. Irregular plurals from noun.exc ("children" -> "child") are added with their
base form's entry (regular plurals are folded by the reader at run time).

How to run
----------
    apt-get install -y wordnet-base        # Debian/Ubuntu: WordNet 3.0 database files
    python3 scripts/gen-kinds.py           # writes src/domain/contradiction/kinds_wordnet.txt
    python3 scripts/gen-kinds.py --dict /path/to/wordnet/dict --out /tmp/kinds.txt

Python 3 standard library only; no network. WordNet 3.0 is distributed under the
WordNet 3.0 licence (LICENSES/WordNet-3.0.txt), which also covers the generated table.
"""

import argparse
import os
import sys

# kind name -> (target synsets as "lemma.sense", excluded sub-trees as "lemma.sense").
# The kind names must match KIND_NAMES in src/domain/contradiction/kinds.rs.
TARGETS = {
    "sport": (["sport.1", "athletic_game.1"], []),
    "exercise": (["exercise.1"], []),
    "game": (["board_game.1", "card_game.1"], []),
    "beverage": (["beverage.1"], []),
    "dish": (["dish.2", "dessert.1"], []),
    "meal": (["meal.1"], []),
    "meat": (["meat.1"], []),
    "fruit": (["edible_fruit.1"], []),
    "vegetable": (["vegetable.1"], []),
    "diet": (["diet.1"], []),
    "city": (["city.1", "town.1"], []),
    "country": (["country.2"], []),
    "state": (["state.1", "province.1"], []),
    "continent": (["continent.1"], []),
    "natural language": (["natural_language.1"], []),
    "programming language": (["programming_language.1"], []),
    "musical instrument": (["musical_instrument.1"], []),
    "transport": (["conveyance.3"], []),
    "color": (["chromatic_color.1", "achromatic_color.1"], []),
    "pet": (["domestic_animal.1"], []),
    "dog breed": (["dog.1"], []),
    "religion": (["religion.2", "religion.1"], []),
    "weekday": (["day_of_the_week.1"], []),
    "month": (["gregorian_calendar_month.1"], []),
    "season": (["season.2"], []),
    "music genre": (["music_genre.1"], []),
    "currency": (["monetary_unit.1"], []),
    "academic degree": (["academic_degree.1"], []),
    "zodiac sign": (["sign_of_the_zodiac.1"], []),
    "fabric": (["fabric.1"], []),
    "dwelling": (["dwelling.1"], []),
}

# Common generic English words: never a member of any kind, whatever WordNet says.
STOP = set(
    """
    home work time way thing day people one it use plan team project service data code
    test file user man woman person place world life year week month part case point
    group number system program question government company problem fact hand eye job
    word business issue side kind head house friend hour game line end member law
    city room mother area money story night water father family state school country
    power office level body face book month lot right study door health art war history
    party result change morning reason research girl guy moment air teacher force
    education foot boy age policy process music market sense nation idea student
    information period food land base paper picture order type light rest tool app
    machine default main master standard normal regular best new old good bad big small
    free basic pro plus premium business personal private public local native general
    a b c d e f g h i j k l m n o p q r s t u v w x y z
    go do be get make set run put take let see say come give show call try keep
    all any some none each other same different own such
    mine yours ours his hers theirs
    spare fare mess board table course meal drink beverage sport sports
    transport transportation vehicle conveyance craft ship
    language tongue color colour religion faith cloth fabric material
    dwelling lodging domicile abode habitation residence
    capital town village settlement municipality
    currency unit degree sign star breed animal pet
    game games play sport event contest match
    dish dessert sweet meat fruit vegetable veg veggie
    diet regime regimen
    season month weekday weekend
    genre style
    hat cap suit pad pants stock lock cell stamp
    stage string round horn stretch carrier port north union patch network mail kingdom
    fighter engine bark church min ma hulk missile tank commuter hearth bird liver cult
    dive rocket balloon vessel mass head key bar cell block chip pool track field
    will may march august sun sat wed jan feb mar apr jun jul aug sep sept oct nov dec
    """.split()
)
# Kept despite the sense filters: common values whose kind sense is rarely tagged.
KEEP = {"jazz", "pound", "cab", "bridge", "sake", "chicken", "taxi", "cola", "soda"}


def read_data(path):
    syn = {}
    with open(path, encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            head = line.partition("|")[0].split()
            off, lexfile = head[0], int(head[1])
            w = int(head[3], 16)
            lemmas = [head[4 + 2 * i] for i in range(w)]
            i = 4 + 2 * w
            p = int(head[i])
            i += 1
            hyper, hypo = [], []
            for _ in range(p):
                sym, o, pos = head[i], head[i + 1], head[i + 2]
                i += 4
                if pos != "n":
                    continue
                if sym in ("@", "@i"):
                    hyper.append(o)
                elif sym in ("~", "~i"):
                    hypo.append(o)
            syn[off] = (lemmas, hyper, hypo, lexfile)
    return syn


def read_index(path):
    idx = {}
    with open(path, encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            fl = line.split()
            lemma, sense_cnt, p_cnt = fl[0], int(fl[2]), int(fl[3])
            tagged = int(fl[5 + p_cnt])
            idx[lemma] = (fl[-sense_cnt:], tagged)
    return idx


def read_counts(path):
    # cntlist.rev: "lemma%1:lexfile:lexid:: sense_number tag_count"; noun senses only.
    counts = {}
    if not os.path.exists(path):
        return counts
    with open(path, encoding="latin-1") as f:
        for line in f:
            fl = line.split()
            if len(fl) != 3 or "%1:" not in fl[0]:
                continue
            lemma = fl[0].split("%")[0]
            counts.setdefault(lemma, {})[int(fl[1])] = int(fl[2])
    return counts


def norm(lemma):
    # Strip WordNet's adjective markers, if any, and lowercase.
    lemma = lemma.split("(")[0]
    return lemma.replace("_", " ").lower().strip()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dict", default="/usr/share/wordnet")
    ap.add_argument(
        "--out",
        default=os.path.join(here, "..", "src", "domain", "contradiction", "kinds_wordnet.txt"),
    )
    args = ap.parse_args()
    syn = read_data(os.path.join(args.dict, "data.noun"))
    idx = read_index(os.path.join(args.dict, "index.noun"))

    def synset(spec):
        lemma, n = spec.rsplit(".", 1)
        return idx[lemma][0][int(n) - 1]

    # Sense filter: (lemma, offset) pairs to skip because the sense is a rare one of a
    # polysemous lemma whose frequent senses are tagged.
    counts = read_counts(os.path.join(args.dict, "cntlist.rev"))

    def rare(lemma, off):
        entry = idx.get(lemma.lower())
        if entry is None or lemma.lower() in KEEP:
            return False
        offs, tagged = entry
        if off not in offs:
            return False
        rank = offs.index(off) + 1
        if tagged >= 1 and rank > max(tagged, 2):
            return True
        # Under a tenth of the lemma's tagged noun uses ("church" the religion).
        seen = counts.get(lemma.lower(), {})
        total = sum(seen.values())
        return total >= 4 and seen.get(rank, 0) * 10 < total

    def rank(lemma, off):
        offs = idx.get(lemma.lower(), ((), 0))[0]
        return offs.index(off) if off in offs else len(offs)

    kinds = {}  # lemma -> set(kind)
    near = {}  # lemma -> set(lemma)
    best = {}  # (lemma, kind) -> rank of the most frequent sense seen in the kind
    for kind, (tops, excluded) in TARGETS.items():
        roots = [synset(t) for t in tops]
        stop_at = {synset(e) for e in excluded}
        # Walk down, remembering for each synset the lemmas above it (below the root).
        above = {}  # offset -> set of lemmas of ancestors within the kind
        stack = [(r, frozenset()) for r in roots]
        while stack:
            off, up = stack.pop()
            if off in stop_at:
                continue
            known = above.get(off)
            if known is not None and up <= known:
                continue
            above[off] = (known or frozenset()) | up
            own = frozenset(norm(l) for l in syn[off][0])
            nxt = above[off] | own if off not in roots else frozenset()
            for h in syn[off][2]:
                stack.append((h, nxt))
        for off, up in above.items():
            if off in roots:
                continue
            lemmas = [l for l in syn[off][0] if not rare(l, off)]
            names = [norm(l) for l in syn[off][0]]
            for lemma in lemmas:
                name = norm(lemma)
                if not name or not any(c.isalpha() for c in name):
                    continue
                if len(name.split()) > 3 or name in STOP:
                    continue
                kinds.setdefault(name, set()).add(kind)
                # Synonyms and more general lemmas, from the lemma's most frequent sense
                # in this kind only ("bus" is slang for an old car in a rare sense).
                r = rank(lemma, off)
                key = (name, kind)
                if key in best and best[key] <= r:
                    continue
                best[key] = r
                rel = near.setdefault(name, {})
                rel[kind] = {n for n in names if n != name} | {n for n in up if n != name}

    # Irregular plurals: "children" -> "child".
    with open(os.path.join(args.dict, "noun.exc"), encoding="latin-1") as f:
        for line in f:
            fl = line.split()
            if len(fl) < 2:
                continue
            plural, base = norm(fl[0]), norm(fl[1])
            if base in kinds and plural not in kinds and plural not in STOP:
                kinds[plural] = set(kinds[base])
                near[plural] = {k: v | {base} for k, v in near.get(base, {}).items()}

    def used(name):
        return idx.get(name.replace(" ", "_"), ((), 0))[1] > 0

    # "near" entries only matter when they are members too.
    out = []
    for name in sorted(kinds):
        rel = set().union(*near.get(name, {}).values())
        # Only lemmas in use (with a frequency-tagged sense) are worth listing.
        rel = sorted(n for n in rel if n in kinds and n != name and used(n))
        line = name + "\t" + ",".join(sorted(kinds[name]))
        if rel:
            line += "\t" + ",".join(rel)
        if "\t" in name or "," in name:
            continue
        out.append(line)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    size = sum(len(l) + 1 for l in out)
    print(f"{len(out)} lemmas, {size} bytes -> {os.path.normpath(args.out)}", file=sys.stderr)


if __name__ == "__main__":
    main()
