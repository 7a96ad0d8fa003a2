
# packaging/completions/minimt.fish: helpers; the generated complete lines follow.
complete -c minimt -f

# Model names from `minimt models --names` (the minimt being completed), then directories.
function __minimt_models
    set -l exe (commandline -opc)[1]
    command -q $exe; and command $exe models --names 2>/dev/null
    __fish_complete_directories (commandline -ct)
end

# A comma-separated list: the values after what is already typed.
function __minimt_list
    set -l token (commandline -ct)
    set -l head (string replace -r '[^,]*$' '' -- $token)
    for value in $argv
        echo $head$value
    end
end
