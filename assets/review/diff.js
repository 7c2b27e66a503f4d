// Word-level diff for the review console: which words of each side are not in the longest
// common subsequence of the two texts, and where the detection explanation's quoted evidence
// sits. Pure functions, no DOM.
(function (global) {
  'use strict';

  // Whitespace, one CJK character (those scripts do not separate words), a run of letters and
  // digits, or one other character (punctuation).
  const TOKEN = /\s+|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}\p{M}_]+|[^\s]/gu;
  // Above this many table cells (16 MB) the middle part that differs is marked whole.
  const MAX_CELLS = 4000000;

  function tokenize(text) {
    const out = [];
    for (const m of text.matchAll(TOKEN)) {
      out.push({ text: m[0], start: m.index, end: m.index + m[0].length,
                 space: /^\s/.test(m[0]), changed: false });
    }
    return out;
  }

  // Marks `changed` on the word tokens of `a` and `b` outside their longest common subsequence.
  function markLcs(aw, bw) {
    let s = 0;
    while (s < aw.length && s < bw.length && aw[s].text === bw[s].text) s++;
    let e = 0;
    while (e < aw.length - s && e < bw.length - s &&
           aw[aw.length - 1 - e].text === bw[bw.length - 1 - e].text) e++;
    const am = aw.slice(s, aw.length - e);
    const bm = bw.slice(s, bw.length - e);
    const n = am.length;
    const m = bm.length;
    if (n * m > MAX_CELLS) {
      am.forEach((t) => { t.changed = true; });
      bm.forEach((t) => { t.changed = true; });
      return;
    }
    const w = m + 1;
    const dp = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        dp[i * w + j] = am[i].text === bm[j].text
          ? dp[(i + 1) * w + j + 1] + 1
          : Math.max(dp[(i + 1) * w + j], dp[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (am[i].text === bm[j].text) { i++; j++; }
      else if (dp[(i + 1) * w + j] >= dp[i * w + j + 1]) { am[i++].changed = true; }
      else { bm[j++].changed = true; }
    }
    while (i < n) am[i++].changed = true;
    while (j < m) bm[j++].changed = true;
  }

  // Tokens of both texts, words outside the common subsequence marked `changed`.
  function diff(aText, bText) {
    const a = tokenize(aText);
    const b = tokenize(bText);
    markLcs(a.filter((t) => !t.space), b.filter((t) => !t.space));
    return { a, b };
  }

  // The quoted parts of an explanation such as `value changed: "30 seconds" vs "60 seconds"`.
  function quotes(explanation) {
    const out = [];
    for (const m of (explanation || '').matchAll(/"([^"]+)"|“([^”]+)”/g)) {
      const q = (m[1] || m[2]).trim();
      if (q) out.push(q);
    }
    return out;
  }

  const WORDISH = /[\p{L}\p{N}]/u;
  // Chinese, Japanese and Korean text has no spaces between words: a quote in those scripts
  // may start or end anywhere, and such a character next to a quote is no part of its word.
  const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
  const wordChar = (ch) => ch !== undefined && WORDISH.test(ch) && !CJK.test(ch);

  // [start, end) ranges where any of `needles` occurs in `text` as whole words,
  // case-insensitively (so the evidence "3" does not light up the 3 in "300"). Where a quote
  // begins or ends in a CJK script, that end needs no word boundary.
  function ranges(text, needles) {
    const hay = text.toLowerCase();
    const out = [];
    for (const needle of needles) {
      const n = needle.toLowerCase();
      if (!n) continue;
      const chars = [...n];
      const freeStart = CJK.test(chars[0]);
      const freeEnd = CJK.test(chars[chars.length - 1]);
      let from = 0;
      for (let k = 0; k < 50; k++) {
        const at = hay.indexOf(n, from);
        if (at < 0) break;
        const end = at + n.length;
        const before = at > 0 ? String.fromCodePoint(hay.codePointAt(at - 1)) : undefined;
        const after = end < hay.length ? String.fromCodePoint(hay.codePointAt(end)) : undefined;
        if ((freeStart || !wordChar(before)) && (freeEnd || !wordChar(after))) out.push([at, end]);
        from = at + 1;
      }
    }
    return out;
  }

  // Runs of text with the same marks: { text, changed, evidence }. A space between two changed
  // words is changed too, so a changed phrase is one mark.
  function segments(tokens, evidence) {
    const out = [];
    tokens.forEach((t, i) => {
      let changed = t.changed;
      if (t.space) {
        const prev = tokens[i - 1];
        const next = tokens[i + 1];
        changed = Boolean(prev && next && prev.changed && next.changed);
      }
      const ev = evidence.some(([s, e]) => t.start < e && t.end > s);
      const last = out[out.length - 1];
      if (last && last.changed === changed && last.evidence === ev) last.text += t.text;
      else out.push({ text: t.text, changed, evidence: ev });
    });
    return out;
  }

  global.ConcordDiff = { tokenize, diff, quotes, ranges, segments };
})(window);
