//! The phrases that state a single-valued attribute of a person ("lives in", "works at",
//! "住在", "에 살아요"), read by `slots` and by the enum-swap rule in `signals`.

/// Attributes that hold one value at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attr {
    Residence,
    Workplace,
    Name,
    Job,
    Birthday,
    /// An email address, phone number or postal address.
    Contact,
    /// The tool, mode or setting in use: many-valued ("uses Go and Rust") unless one side says
    /// it replaced the other.
    Choice,
}

impl Attr {
    pub fn describe(self) -> &'static str {
        match self {
            Attr::Residence => "lives in",
            Attr::Workplace => "works at",
            Attr::Name => "name",
            Attr::Job => "job",
            Attr::Birthday => "birthday",
            Attr::Contact => "contact",
            Attr::Choice => "uses",
        }
    }
}

/// Where the value stands relative to the phrase that states the attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// "lives in *Berlin*", "住在*北京*".
    After,
    /// Korean particles and Chinese "在…工作" follow the value: "*서울*에 살아요", "在*谷歌*工作".
    Before,
}

/// A phrase that states an attribute: its tokens (CJK phrases character by character), where
/// the value stands, and whether it reports a change ("moved to") rather than a state.
pub struct Phrase {
    pub attr: Attr,
    pub words: &'static [&'static str],
    pub dir: Dir,
    pub change: bool,
}

const fn p(attr: Attr, words: &'static [&'static str], dir: Dir, change: bool) -> Phrase {
    Phrase {
        attr,
        words,
        dir,
        change,
    }
}

use Attr::{Birthday, Choice, Contact, Job, Name, Residence, Workplace};
use Dir::{After, Before};

pub const PHRASES: &[Phrase] = &[
    p(Residence, &["live", "in"], After, false),
    p(Residence, &["lives", "in"], After, false),
    p(Residence, &["living", "in"], After, false),
    p(Residence, &["based", "in"], After, false),
    p(Residence, &["reside", "in"], After, false),
    p(Residence, &["resides", "in"], After, false),
    p(Residence, &["moved", "to"], After, true),
    p(Residence, &["relocated", "to"], After, true),
    p(Residence, &["moving", "to"], After, true),
    p(Residence, &["住", "在"], After, false),
    p(Residence, &["居", "住", "在"], After, false),
    p(Residence, &["定", "居", "在"], After, false),
    p(Residence, &["生", "活", "在"], After, false),
    p(Residence, &["搬", "到"], After, true),
    p(Residence, &["搬", "去"], After, true),
    p(Residence, &["에", "살"], Before, false),
    p(Residence, &["에", "서", "살"], Before, false),
    p(Residence, &["에", "산", "다"], Before, false),
    p(Residence, &["에", "거", "주"], Before, false),
    p(Residence, &["으", "로", "이", "사"], Before, true),
    p(Residence, &["로", "이", "사"], Before, true),
    p(Workplace, &["work", "at"], After, false),
    p(Workplace, &["works", "at"], After, false),
    p(Workplace, &["working", "at"], After, false),
    p(Workplace, &["work", "for"], After, false),
    p(Workplace, &["works", "for"], After, false),
    p(Workplace, &["working", "for"], After, false),
    p(Workplace, &["employed", "at"], After, false),
    p(Workplace, &["employed", "by"], After, false),
    p(Workplace, &["job", "at"], After, false),
    p(Workplace, &["new", "job", "at"], After, true),
    p(Workplace, &["hired", "by"], After, true),
    p(Workplace, &["工", "作"], Before, false),
    p(Workplace, &["上", "班"], Before, false),
    p(Workplace, &["跳", "槽", "到"], After, true),
    p(Workplace, &["入", "职"], After, true),
    p(Workplace, &["에", "서", "일"], Before, false),
    p(Workplace, &["에", "서", "근", "무"], Before, false),
    p(Workplace, &["에", "입", "사"], Before, true),
    p(Workplace, &["으", "로", "이", "직"], Before, true),
    p(Workplace, &["로", "이", "직"], Before, true),
    p(Name, &["name", "is"], After, false),
    p(Name, &["name's"], After, false),
    p(Name, &["go", "by"], After, false),
    p(Name, &["goes", "by"], After, false),
    p(Name, &["叫"], After, false),
    p(Name, &["名", "字", "是"], After, false),
    p(Name, &["이", "름", "은"], After, false),
    p(Name, &["이", "름", "이"], After, false),
    p(Job, &["work", "as"], After, false),
    p(Job, &["works", "as"], After, false),
    p(Job, &["working", "as"], After, false),
    p(Job, &["job", "is"], After, false),
    p(Job, &["title", "is"], After, false),
    p(Job, &["occupation", "is"], After, false),
    p(Job, &["profession", "is"], After, false),
    p(Job, &["职", "业", "是"], After, false),
    p(Job, &["직", "업", "은"], After, false),
    p(Birthday, &["birthday", "is"], After, false),
    p(Birthday, &["born", "on"], After, false),
    p(Birthday, &["生", "日", "是"], After, false),
    p(Birthday, &["생", "일", "은"], After, false),
    p(Contact, &["email", "is"], After, false),
    p(Contact, &["number", "is"], After, false),
    p(Contact, &["address", "is"], After, false),
    p(Contact, &["邮", "箱", "是"], After, false),
    p(Contact, &["电", "话", "是"], After, false),
    p(Contact, &["地", "址", "是"], After, false),
    p(Choice, &["use"], After, false),
    p(Choice, &["uses"], After, false),
    p(Choice, &["using"], After, false),
    p(Choice, &["switched", "to"], After, true),
    p(Choice, &["prefer"], After, false),
    p(Choice, &["prefers"], After, false),
    p(Choice, &["偏", "好"], After, false),
    p(Choice, &["更", "喜", "欢"], After, true),
    p(Choice, &["changed", "to"], After, true),
    p(Choice, &["用"], After, false),
    p(Choice, &["使", "用"], After, false),
    p(Choice, &["换", "成"], After, true),
    p(Choice, &["改", "用"], After, true),
    p(Choice, &["切", "换", "到"], After, true),
    p(Choice, &["사", "용"], Before, false),
    p(Choice, &["로", "바", "꿨"], Before, true),
    p(Choice, &["으", "로", "바", "꿨"], Before, true),
];

/// Whether two verbs state different single-valued attributes ("lives" / "works"): swapping
/// one for the other says a second thing, not a changed one.
pub fn other_attribute(a: &str, b: &str) -> bool {
    let attr = |w: &str| {
        PHRASES
            .iter()
            .find(|p| p.words[0] == w && p.words.len() > 1 && !p.change)
            .map(|p| p.attr)
    };
    matches!((attr(a), attr(b)), (Some(x), Some(y)) if x != y)
}
