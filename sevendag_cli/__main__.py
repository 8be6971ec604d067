from sevendag_cli.cli import main

main()
