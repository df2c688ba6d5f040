"""What turns a prompt into a validated verdict: render, ask, check the reply, name the failure."""
