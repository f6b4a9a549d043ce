//! UTC timestamps for `generationDateAndTime` and zip entries, honouring
//! `SOURCE_DATE_EPOCH` (reproducible builds).

use std::time::{SystemTime, UNIX_EPOCH};

/// A civil UTC time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Utc {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl Utc {
    /// From seconds since 1970-01-01T00:00:00Z (proleptic Gregorian calendar).
    pub fn from_unix(secs: i64) -> Utc {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400) as u32;
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        Utc {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: rem / 60 % 60,
            second: rem % 60,
        }
    }

    /// `YYYY-MM-DDThh:mm:ssZ` (xs:dateTime as FMI requires).
    pub fn to_xml(self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// The build time: `SOURCE_DATE_EPOCH` if set to an integer, otherwise now.
pub fn build_time() -> Utc {
    let from_env = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok());
    let secs = from_env.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0)
    });
    Utc::from_unix(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(Utc::from_unix(0).to_xml(), "1970-01-01T00:00:00Z");
        assert_eq!(Utc::from_unix(951_782_400).to_xml(), "2000-02-29T00:00:00Z");
        assert_eq!(
            Utc::from_unix(1_700_000_000).to_xml(),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(
            Utc::from_unix(4_102_444_799).to_xml(),
            "2099-12-31T23:59:59Z"
        );
        assert_eq!(Utc::from_unix(-1).to_xml(), "1969-12-31T23:59:59Z");
    }
}
