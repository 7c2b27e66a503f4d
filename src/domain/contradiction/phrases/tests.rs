use super::*;

#[test]
fn every_phrase_fits_the_parts_buffer() {
    for p in shift_phrases() {
        let (words, n) = parts(p);
        assert_eq!(words[..n].concat().replace(' ', ""), p.replace(' ', ""));
        // `find` starts matches only at tokens holding a pattern's first part.
        assert_eq!(words[0], first_part(p), "{p}");
    }
}
