from kp.app import main

main()
