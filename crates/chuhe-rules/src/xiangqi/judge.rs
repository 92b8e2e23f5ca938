//! The repetition verdict (`spec/xiangqi.md` §6.2–§6.4): on the third occurrence of a position,
//! perpetual check loses, else perpetual chase loses, else the game is drawn.
//!
//! This first version implements level L1 (the chase set is always empty).

use super::game::Ply;
use super::position::Position;
use crate::outcome::{EndReason, Outcome};

/// The verdict when the current position (the last of `positions`) occurs for the third time
/// since the last capture, or `None` when it does not.
pub(crate) fn repetition_verdict(history: &[Ply], positions: &[Position]) -> Option<Outcome> {
    let now = history.len();
    let key = history.last().map_or(positions[0].key(), |p| p.key);
    // Plies whose position equals the current one, searching back to the last capture.
    let mut occurrences = vec![now];
    let mut ply = now;
    while ply > 0 && !history[ply - 1].capture {
        ply -= 1;
        if positions[ply].key() == key
            && positions[ply].to_setup().board == positions[now].to_setup().board
        {
            occurrences.push(ply);
        }
    }
    if occurrences.len() < 3 {
        return None;
    }
    let first = occurrences[2];
    // The window: moves producing plies first+1 ..= now. Even plies after `first` are by the side
    // to move at `first`.
    let mover_at_first = positions[first].side_to_move();
    let mut checks_all = [true, true];
    for p in first + 1..=now {
        let mover = positions[p - 1].side_to_move();
        if !positions[p].is_check() {
            checks_all[mover.index()] = false;
        }
    }
    let _ = mover_at_first;
    let red = checks_all[0];
    let black = checks_all[1];
    Some(match (red, black) {
        (true, false) => Outcome::win(super::Color::Black.winner(), EndReason::PerpetualCheck),
        (false, true) => Outcome::win(super::Color::Red.winner(), EndReason::PerpetualCheck),
        _ => Outcome::draw(EndReason::ThreefoldRepetition),
    })
}
