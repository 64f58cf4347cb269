"""miniworld's multisampling fallback note stays off stdout; anything else it prints is kept."""

from gridwm_judge.worlds.miniworld.backend import quiet_renderer_notes


def test_the_fallback_note_is_dropped_and_other_output_goes_to_stderr(capsys):
    with quiet_renderer_notes():
        print("Falling back to num_samples=4")
        print("Falling back to non-multisampled frame buffer")
    out, err = capsys.readouterr()
    assert out == "" and err == "Falling back to non-multisampled frame buffer\n"
