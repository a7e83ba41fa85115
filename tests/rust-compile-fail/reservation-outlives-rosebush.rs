// expect: `rb` does not live long enough
// A Reservation borrows its rosebush, which cannot be dropped before it.
use kernel::{prelude::*, rosebush::{Reservation, Rosebush}};

pub fn case() -> Result {
    let slot: Reservation<'_, u32>;
    {
        let rb = KBox::pin_init(Rosebush::<u32>::new(), GFP_KERNEL)?;
        slot = rb.reserve(1)?;
    }
    slot.release();
    Ok(())
}
