"""The job process: what runs on a schedule rather than in a request (mail delivery, clocks,
reminders, digests, the computer's moves), and the lock that lets one process run it."""
