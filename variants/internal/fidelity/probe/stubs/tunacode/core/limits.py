def get_command_limit():
    return 5000
