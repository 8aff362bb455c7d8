//! A stream whose reads and writes a signal does not cut short. A socket with
//! a read or write timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO`) is never restarted
//! by the kernel: a process that is stopped and continued (a frozen container,
//! job control, a debugger) sees `EINTR`, which a WebSocket library takes for a
//! broken connection. The retry restarts the call with its full timeout, so a
//! caught signal is noticed within one timeout.

use std::io::{ErrorKind, Read, Result, Write};
use std::ops::{Deref, DerefMut};

/// Retries past which an interrupted call is given up (a signal storm).
const RETRIES: u32 = 64;

/// `S` with `Interrupted` retried on every read, write and flush.
#[derive(Debug)]
pub struct Steady<S>(pub S);

fn retried<T>(mut call: impl FnMut() -> Result<T>) -> Result<T> {
    let mut left = RETRIES;
    loop {
        match call() {
            Err(e) if e.kind() == ErrorKind::Interrupted && left > 0 => left -= 1,
            other => return other,
        }
    }
}

impl<S: Read> Read for Steady<S> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        retried(|| self.0.read(buf))
    }
}

impl<S: Write> Write for Steady<S> {
    fn write(&mut self, buf: &[u8]) -> Result<usize> {
        retried(|| self.0.write(buf))
    }

    fn flush(&mut self) -> Result<()> {
        retried(|| self.0.flush())
    }
}

impl<S> Deref for Steady<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.0
    }
}

impl<S> DerefMut for Steady<S> {
    fn deref_mut(&mut self) -> &mut S {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails with `Interrupted` `cuts` times before each call goes through.
    struct Cut {
        cuts: u32,
        left: u32,
    }

    impl Cut {
        fn step(&mut self) -> Result<()> {
            if self.left > 0 {
                self.left -= 1;
                return Err(ErrorKind::Interrupted.into());
            }
            self.left = self.cuts;
            Ok(())
        }
    }

    impl Read for Cut {
        fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
            self.step()?;
            buf[0] = b'x';
            Ok(1)
        }
    }

    impl Write for Cut {
        fn write(&mut self, buf: &[u8]) -> Result<usize> {
            self.step()?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> Result<()> {
            self.step()
        }
    }

    #[test]
    fn interrupted_calls_are_retried_and_a_storm_is_given_up() {
        let mut s = Steady(Cut { cuts: 3, left: 3 });
        let mut b = [0u8; 4];
        assert_eq!(s.read(&mut b).unwrap(), 1);
        assert_eq!(s.write(b"abc").unwrap(), 3);
        s.flush().unwrap();
        let mut storm = Steady(Cut {
            cuts: 0,
            left: RETRIES + 1,
        });
        let e = storm.read(&mut b).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Interrupted);
    }
}
