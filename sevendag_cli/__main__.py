from sevendag_cli.start import main

main()
