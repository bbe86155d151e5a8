//! The seed data of the users workload: 100 rows from a fixed seed and a fixed generator, the
//! same on every machine and in every version.

/// The seed of the generator.
const SEED: u64 = 0x5EED_0003;

/// A row of table `"user"`, with `birthdate` as `YYYY-MM-DD HH:MM:SS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRow {
    pub id: i64,
    pub username: String,
    pub name: String,
    pub sex: String,
    pub address: String,
    pub mail: String,
    pub birthdate: String,
}

// The generator's vocabulary: names, addresses and mail domains.
const MALE: [&str; 20] = [
    "James",
    "Robert",
    "John",
    "Michael",
    "David",
    "William",
    "Richard",
    "Joseph",
    "Thomas",
    "Charles",
    "Christopher",
    "Daniel",
    "Matthew",
    "Anthony",
    "Mark",
    "Donald",
    "Steven",
    "Paul",
    "Andrew",
    "Joshua",
];
const FEMALE: [&str; 20] = [
    "Mary",
    "Patricia",
    "Jennifer",
    "Linda",
    "Elizabeth",
    "Barbara",
    "Susan",
    "Jessica",
    "Sarah",
    "Karen",
    "Lisa",
    "Nancy",
    "Betty",
    "Margaret",
    "Sandra",
    "Ashley",
    "Kimberly",
    "Emily",
    "Donna",
    "Michelle",
];
const LAST: [&str; 30] = [
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Garcia",
    "Miller",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Hernandez",
    "Lopez",
    "Gonzalez",
    "Wilson",
    "Anderson",
    "Thomas",
    "Taylor",
    "Moore",
    "Jackson",
    "Martin",
    "Lee",
    "Perez",
    "Thompson",
    "White",
    "Harris",
    "Sanchez",
    "Clark",
    "Ramirez",
    "Lewis",
    "Walker",
];
const STREETS: [&str; 12] = [
    "Debra",
    "Oak",
    "Maple",
    "Cedar",
    "Pine",
    "Elm",
    "Washington",
    "Lake",
    "Hill",
    "Park",
    "Sunset",
    "Ridge",
];
const SUFFIXES: [&str; 8] = [
    "Neck", "Street", "Avenue", "Road", "Lane", "Drive", "Court", "Way",
];
const TOWNS: [&str; 10] = [
    "Lisa", "Port", "East", "West", "North", "Lake", "New", "South", "Fort", "Mount",
];
const TOWN_ENDS: [&str; 6] = ["town", "ville", "burgh", "view", "side", " City"];
const STATES: [&str; 12] = [
    "OH", "CA", "TX", "NY", "FL", "WA", "IL", "PA", "GA", "NC", "MI", "AZ",
];
const DOMAINS: [&str; 4] = ["gmail.com", "yahoo.com", "hotmail.com", "example.org"];

/// The 100 seed rows: realistic names, usernames, mails, two-line addresses and birthdates,
/// generated from a fixed seed with a fixed generator (the same on every machine).
pub fn seed_rows() -> Vec<UserRow> {
    let mut rng = SplitMix64(SEED);
    (1..=100).map(|id| seed_row(id, &mut rng)).collect()
}

/// Row `id`, drawn from `rng` in a fixed order: changing the order changes every later row.
fn seed_row(id: i64, rng: &mut SplitMix64) -> UserRow {
    let male = rng.below(2) == 0;
    let first = if male {
        MALE[rng.below(20)]
    } else {
        FEMALE[rng.below(20)]
    };
    let last = LAST[rng.below(30)];
    let username = format!(
        "{}{}{}",
        first.to_lowercase(),
        &last[..1].to_lowercase(),
        rng.below(90) + 10
    );
    let mail = format!(
        "{}{}@{}",
        last.to_lowercase(),
        rng.below(900) + 100,
        DOMAINS[rng.below(4)]
    );
    let address = format!(
        "{} {} {}\n{}{}, {} {:05}",
        rng.below(99_000) + 100,
        STREETS[rng.below(12)],
        SUFFIXES[rng.below(8)],
        TOWNS[rng.below(10)],
        TOWN_ENDS[rng.below(6)],
        STATES[rng.below(12)],
        rng.below(89_999) + 10_000
    );
    let birthdate = format!(
        "{}-{:02}-{:02} 00:00:00",
        1940 + rng.below(66),
        rng.below(12) + 1,
        rng.below(28) + 1
    );
    UserRow {
        id,
        username,
        name: format!("{first} {last}"),
        sex: if male { "M" } else { "F" }.into(),
        address,
        mail,
        birthdate,
    }
}

/// The fingerprint of [`seed_rows`] (see [`seed_digest`]): the seed data must be the same on
/// every machine and in every version, or results stop being comparable.
pub const SEED_DIGEST: u64 = 0xe43f_6390_375c_7010;

/// FNV-1a over every field of every row in order (fields end with 0x1f, rows with 0x1e), so
/// two row sets have the same digest only if their whole content is the same.
pub fn seed_digest(rows: &[UserRow]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    for r in rows {
        for field in [
            r.id.to_string().as_str(),
            &r.username,
            &r.name,
            &r.sex,
            &r.address,
            &r.mail,
            &r.birthdate,
        ] {
            feed(field.as_bytes());
            feed(&[0x1f]);
        }
        feed(&[0x1e]);
    }
    h
}

/// A fixed, portable generator (no dependency whose output could change between versions).
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_rows_are_stable_and_realistic() {
        let rows = seed_rows();
        assert_eq!(rows.len(), 100);
        assert_eq!(rows, seed_rows());
        assert!(
            rows.iter()
                .all(|r| r.address.contains('\n') && r.mail.contains('@') && r.name.contains(' '))
        );
        assert!(rows.iter().all(|r| r.sex == "M" || r.sex == "F"));
        assert!(rows.iter().all(|r| {
            // `YYYY-MM-DD HH:MM:SS`, the column's text form.
            let b = r.birthdate.as_bytes();
            b.len() == 19
                && b.iter().enumerate().all(|(i, c)| match i {
                    4 | 7 => *c == b'-',
                    10 => *c == b' ',
                    13 | 16 => *c == b':',
                    _ => c.is_ascii_digit(),
                })
        }));
        // A fingerprint of the generator's output: it must never change between versions.
        let first = &rows[0];
        assert_eq!((first.id, first.username.len() > 3), (1, true));
        let digest: u64 = rows
            .iter()
            .flat_map(|r| r.address.bytes())
            .fold(0xcbf29ce484222325, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
            });
        assert_eq!(digest, ADDRESS_DIGEST, "seed data changed: {digest:#x}");
        let full = seed_digest(&rows);
        assert_eq!(full, SEED_DIGEST, "seed data changed: {full:#x}");
        let mut changed = rows.clone();
        changed[99].mail.push('x');
        assert_ne!(seed_digest(&changed), SEED_DIGEST);
    }

    const ADDRESS_DIGEST: u64 = 0x5f47_aba9_c149_a697;
}
