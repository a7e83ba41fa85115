// expect: `rb` does not live long enough
// A Reservation borrows its rosebush, which cannot be dropped before it.
use kernel::{
    prelude::*,
    rosebush::{new_rosebush, Reservation, Rosebush},
};

pub fn case() -> Result {
    let slot: Reservation<'_, u32>;
    {
        let rb: Pin<KBox<Rosebush<u32>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
        slot = rb.reserve(1)?;
    }
    slot.release();
    Ok(())
}
