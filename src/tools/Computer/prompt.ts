export const COMPUTER_TOOL_NAME = "computer";

export const COMPUTER_DESCRIPTION = "See and operate a graphical desktop: screenshots, mouse, keyboard.";

export function computerPrompt(width: number, height: number): string {
  return `Operate the graphical desktop (an X11 display of ${width}x${height} pixels), one action per call.

Coordinates are [x, y] pixels of the screenshots this tool returns: x from 0 to ${width - 1}, y from 0 to ${height - 1}, [0, 0] at the top left.

Actions:
- screenshot: the whole screen.
- left_click, right_click, middle_click, double_click, triple_click: at coordinate (or at the pointer); text may name modifier keys to hold, e.g. "shift".
- mouse_move: to coordinate. left_click_drag: from start_coordinate to coordinate. left_mouse_down, left_mouse_up: press or release the left button.
- scroll: scroll_direction (up, down, left, right) by scroll_amount wheel clicks (default 3), at coordinate or the pointer.
- type: text, typed as keystrokes. key: text is a key or combination in xdotool names ("Return", "ctrl+s", "alt+Tab"; several separated by spaces). hold_key: hold the keys in text for duration seconds.
- wait: duration seconds, then a screenshot.
- zoom: region [x0, y0, x1, y1] shown at the screen's full resolution, to read small text.
- cursor_position: where the pointer is.

Actions that change the screen answer with a screenshot taken just after. Clicks, typing and keys may need the user's approval.`;
}
